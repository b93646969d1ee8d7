/* eslint-disable @typescript-eslint/no-require-imports -- deferred loading is the point of this module */
import type { Request, Response, Router } from "express";
import type { Deps } from "../deps";
import type { Presenter } from "./presenters";

type Handler = (req: Request, res: Response) => void;

export interface Group {
  routes: (deps: Deps) => Router;
  presenter: Presenter;
}

/**
 * Defers loading a group's code, and firebase-admin behind it, to the first request, so an
 * instance that serves one group never pays for the others at cold start.
 */
export function serve(load: () => Group): Handler {
  let app: Handler | undefined;
  return (req, res) => {
    if (!app) {
      const { routes, presenter } = load();
      const { productionDeps } = require("../deps") as typeof import("../deps");
      const { createApp } = require("./app") as typeof import("./app");
      const deps = productionDeps();
      app = createApp(routes(deps), { presenter, allowedOrigins: deps.config.allowedOrigins, log: deps.log });
    }
    app(req, res);
  };
}
