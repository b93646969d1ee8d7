/**
 * The people group (routes/people/, which serves the invitations) by a plain HTTP server, exactly as
 * its function builds it. The mail queue wakes nothing: the bench measures deciding and queueing
 * the invitations, and counts their outbox entries afterwards.
 * env: PORT, SESSION_KEYS, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { service } from "../lib/functions.ts";
import { serviceDeps, silentLogger } from "../lib/service-deps.ts";

const { createApp } = service<any>("http/app");
const people = service<any>("routes/people/people");

const deps = serviceDeps({
  sessionKeys: process.env.SESSION_KEYS as string,
  log: silentLogger,
  mailQueue: () => ({ wake: async () => {} }),
});
const app = createApp(people.routes(deps), {
  presenter: people.presenter,
  allowedOrigins: deps.config.allowedOrigins,
  log: silentLogger,
});
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
