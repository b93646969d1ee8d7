/* eslint-disable @typescript-eslint/no-require-imports -- deferred loading is the point of this module */
import type { Request, Response, Router } from "express";
import type { Deps } from "../deps";
import { consoleLogger } from "../logger";
import type { Presenter } from "./presenters";

export type Handler = (req: Request, res: Response) => void;

export interface Group {
  routes: (deps: Deps) => Router;
  presenter: Presenter;
}

/** The endpoint groups, each one Cloud Function: `routes/<name>.ts`. */
const GROUPS = {
  sessions: () => require("../routes/sessions") as Group,
  otp: () => require("../routes/otp") as Group,
  bridge: () => require("../routes/bridge") as Group,
  oidc: () => require("../routes/oidc") as Group,
  people: () => require("../routes/people") as Group,
  startpage: () => require("../routes/startpage") as Group,
  calendar: () => require("../routes/calendar") as Group,
  location: () => require("../routes/location") as Group,
  status: () => require("../routes/status") as Group,
  claims: () => require("../routes/claims") as Group,
} satisfies Record<string, () => Group>;

export type GroupName = keyof typeof GROUPS;

/**
 * Defers loading a group's code, and firebase-admin behind it, to the first request, so an
 * instance that serves one group never pays for the others at cold start. A group that cannot
 * be built (a missing secret, say) answers 500 without internals and is tried again next time.
 */
export function serve(name: GroupName): Handler {
  let app: Handler | undefined;
  return (req, res) => {
    if (!app) {
      try {
        const { routes, presenter } = GROUPS[name]();
        const { productionDeps } = require("../deps") as typeof import("../deps");
        const { createApp } = require("./app") as typeof import("./app");
        const deps = productionDeps();
        app = createApp(routes(deps), { presenter, allowedOrigins: deps.config.allowedOrigins, log: deps.log });
      } catch (err) {
        consoleLogger.error(`the ${name} function could not start`, { error: err instanceof Error ? err.stack : String(err) });
        res.status(500).json({ error: "Internal error" });
        return;
      }
    }
    app(req, res);
  };
}
