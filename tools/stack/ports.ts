/** Where each part of a stack listens. `npm start` uses the ports of local-stack.md; `npm test` its own. */
export interface Profile {
  name: "dev" | "test";
  projectId: string;
  hosting: number;
  functions: number;
  auth: number;
  firestore: number;
  hub: number;
  logging: number;
  /**
   * The Cloud Tasks emulator the Functions emulator starts for the `mail` task queue: on a port of
   * the profile's own, so that the operator CLI can wake the stack's `mail` function through it.
   */
  tasks: number;
  smtp: number;
  mailWeb: number;
  /** The local OpenID 2.0 provider of the `gaming` bridge. */
  gaming: number;
  /** The local OpenID Connect provider behind the `federated` bridge. */
  federated: number;
  /** The inbox for webhook deliveries (tools/hook-inbox.ts), which the dev stack's seed subscribes an app to. */
  hookInbox: number;
  /** The https front: every host of the parent domain, as a browser meets them (stack/front.ts). */
  https: number;
  /**
   * The test stack alone: where a test serves agents' metadata documents, the one loopback origin
   * its functions may read them from (OIDC_METADATA_DEV_ORIGINS), with the front's certificate.
   */
  documents?: number;
}

function envPort(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw ? Number(raw) : fallback;
}

export function profile(name: "dev" | "test"): Profile {
  if (name === "dev") {
    return {
      name,
      projectId: "demo-identity",
      hosting: envPort("HOSTING_PORT", 5000),
      functions: envPort("FUNCTIONS_PORT", 5001),
      auth: envPort("AUTH_PORT", 9099),
      firestore: envPort("FIRESTORE_PORT", 8080),
      hub: envPort("HUB_PORT", 4400),
      logging: envPort("LOGGING_PORT", 4500),
      tasks: envPort("TASKS_PORT", 9499),
      smtp: envPort("MAIL_SMTP_PORT", 1025),
      mailWeb: envPort("MAIL_WEB_PORT", 1080),
      gaming: envPort("GAMING_PROVIDER_PORT", 5010),
      federated: envPort("FEDERATED_PROVIDER_PORT", 5015),
      hookInbox: envPort("HOOK_INBOX_PORT", 5020),
      https: envPort("HTTPS_PORT", 5443),
    };
  }
  // TEST_PORT_OFFSET lets two suites run side by side (e.g. two checkouts on one machine).
  const off = envPort("TEST_PORT_OFFSET", 0);
  return {
    name,
    projectId: "demo-identity-test",
    hosting: 5100 + off,
    functions: 5101 + off,
    auth: 9199 + off,
    firestore: 8180 + off,
    hub: 4410 + off,
    logging: 4510 + off,
    tasks: 9599 + off,
    smtp: 1125 + off,
    mailWeb: 1180 + off,
    gaming: 5110 + off,
    federated: 5115 + off,
    hookInbox: 5120 + off,
    https: 5143 + off,
    documents: 5125 + off,
  };
}

/** The Hosting emulator puts site i ≥ 1 on hosting + 4 + i: the identity host is the second site. */
export function idSitePort(p: Profile): number {
  return p.hosting + 5;
}
