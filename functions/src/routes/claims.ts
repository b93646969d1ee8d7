import { Router } from "express";
import type { Deps } from "../deps";
import { jsonErrors } from "../http/presenters";

export const presenter = jsonErrors;

export function routes(_deps: Deps): Router {
  return Router();
}
