import { Router } from "express";
import type { Deps } from "../deps";
import { htmlErrors } from "../http/presenters";

export const presenter = htmlErrors;

export function routes(_deps: Deps): Router {
  return Router();
}
