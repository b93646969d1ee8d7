/**
 * A live session as the person (GET /auth/sessions) and the administrators
 * (GET /auth/people/:personId/sessions) see it: a type of its own with nothing imported, so the
 * identity host's pages take it from here (as site/src/shared/api.ts takes PersonView) instead of a copy.
 */
export interface SessionView {
  sessionId: string;
  /** The session of the browser that asked. */
  current: boolean;
  openedAt: string;
  /** When and how the person authenticated to open it. */
  signedInAt: string;
  methods: string[];
  lastSeenAt: string;
  browser: string;
  system: string;
}
