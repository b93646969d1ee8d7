/**
 * The plain-HTTP side of the stand-in: only what tests and readiness probes use of the official
 * emulator's REST surface.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

import { type Operations, zero } from "./operations.ts";

// DELETE /emulator/v1/projects/<project>/databases/<database>/documents, as the official emulator.
const RESET = /^\/emulator\/v1\/projects\/[^/]+\/databases\/[^/]+\/documents\/?$/;

export function httpHandler(reset: () => void, operations: Operations) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    if (request.method === "GET" && path === "/") {
      response.writeHead(200, { "content-type": "text/plain" }).end("Ok");
    } else if (request.method === "DELETE" && RESET.test(path)) {
      // The library keeps all projects in one state and can only clear all of it.
      reset();
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    } else if (path === "/emulator/v1/operations" && request.method === "GET") {
      // Not on the official emulator: the stand-in's own count of what clients asked of it.
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(operations));
    } else if (path === "/emulator/v1/operations" && request.method === "DELETE") {
      Object.assign(operations, zero());
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    } else {
      const body = {
        error: { code: 404, message: `${request.method} ${path} is not served by the Firestore stand-in` },
      };
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify(body));
    }
  };
}
