/**
 * Every route of the administrators' API, read from the people group's own router (its
 * invitations' router too), so a route added later is in the list without anyone adding it here.
 */
import type { Router } from "express";
import * as peopleGroup from "../../src/routes/people/people";
import type { Deps } from "../../src/deps";

export interface RouteOf {
  method: string;
  path: string;
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function routesIn(stack: Layer[]): RouteOf[] {
  return stack.flatMap((layer) => {
    if (layer.route)
      return Object.keys(layer.route.methods)
        .filter((m) => m !== "_all")
        .map((method) => ({ method: method.toUpperCase(), path: layer.route?.path as string }));
    return layer.handle?.stack ? routesIn(layer.handle.stack) : [];
  });
}

/** The routes only an administrator may use: all of the people group's but a person's own account's. */
export function adminRoutes(deps: Deps): RouteOf[] {
  const router = peopleGroup.routes(deps) as Router & { stack: Layer[] };
  return routesIn(router.stack).filter((r) => !r.path.startsWith("/auth/account"));
}

/** The route's path with its parameters filled in: `ids` by name, else a made-up value. */
export function filled(route: RouteOf, ids: Record<string, string> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(ids[name] ?? `no-${name}`));
}
