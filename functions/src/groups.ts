/* eslint-disable @typescript-eslint/no-require-imports -- each group loads on its first request, not at an instance's start */
import type { Deps } from "./core/deps";
import type { Group } from "./http/serve";

/**
 * The endpoint groups, each one Cloud Function: `routes/<name>.ts`, its routes and the presenter
 * of its refusals. Loaded on the group's first request, so an instance that serves one group
 * never pays for the others.
 */
export const GROUPS = {
  sessions: () => require("./routes/sessions") as Group,
  otp: () => require("./routes/otp") as Group,
  bridge: () => require("./routes/bridge") as Group,
  oidc: () => require("./routes/oidc") as Group,
  people: () => require("./routes/people") as Group,
  startpage: () => require("./routes/startpage") as Group,
  calendar: () => require("./routes/calendar") as Group,
  location: () => require("./routes/location") as Group,
  status: () => require("./routes/status") as Group,
  claims: () => require("./routes/claims") as Group,
  passkeys: () => require("./routes/passkeys") as Group,
} satisfies Record<string, () => Group>;

export type GroupName = keyof typeof GROUPS;

/** A task-queue function's work, given the production dependencies. */
export type Task = (deps: Deps) => Promise<unknown>;

/** The task-queue functions' work, loaded on the first task like the groups. */
export const TASKS = {
  mail: () => (require("./core/mail/outbox") as typeof import("./core/mail/outbox")).drainOutbox as Task,
} satisfies Record<string, () => Task>;
