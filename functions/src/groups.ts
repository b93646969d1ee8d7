/* eslint-disable @typescript-eslint/no-require-imports -- a loader names its group's module, which bundle.mts bundles on its own */
import type { Router } from "express";
import type { Deps } from "./core/deps";
import type { Presenter } from "./http/presenters";
import type { PATHS } from "./paths";

/** An endpoint group (routes/<name>/<name>.ts): its routes, built around the dependencies, and its presenter. */
export interface Group {
  routes: (deps: Deps) => Router;
  presenter: Presenter;
}

/** A task-queue function's work (tasks/<name>.ts), given the production dependencies. */
export interface Task {
  run: (deps: Deps) => Promise<unknown>;
}

/**
 * The endpoint groups, each one Cloud Function: `routes/<name>/<name>.ts`, its routes and the presenter
 * of its refusals. The paths each serves, and on which sites, are declared beside them in
 * paths.ts (the route manifest); a group missing from either does not compile. Each is bundled
 * on its own with what it uses (bundle.mts, from the module its loader requires), so an instance
 * that serves one group never loads the others.
 */
export const GROUPS = {
  sessions: () => require("./routes/sessions/sessions") as Group,
  otp: () => require("./routes/otp/otp") as Group,
  bridge: () => require("./routes/bridge/bridge") as Group,
  oidc: () => require("./routes/oidc/oidc") as Group,
  people: () => require("./routes/people/people") as Group,
  startpage: () => require("./routes/startpage/startpage") as Group,
  calendar: () => require("./routes/calendar/calendar") as Group,
  location: () => require("./routes/location/location") as Group,
  status: () => require("./routes/status/status") as Group,
  claims: () => require("./routes/claims/claims") as Group,
  passkeys: () => require("./routes/passkeys/passkeys") as Group,
  mcp: () => require("./routes/mcp/mcp") as Group,
} satisfies Record<keyof typeof PATHS, () => Group>;

export type GroupName = keyof typeof GROUPS;

/** The task-queue functions, bundled each on its own like the groups. */
export const TASKS = {
  mail: () => require("./tasks/mail") as Task,
} satisfies Record<string, () => Task>;

export type TaskName = keyof typeof TASKS;
