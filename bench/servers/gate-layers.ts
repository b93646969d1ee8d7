/**
 * A gated GET built up one layer at a time, each layer a server of its own (env LAYER), so the
 * cost of each is the difference between two neighbours: the floor (bare express), then the
 * service's app shell (createApp: trace, no-store, deadline, CORS, not-found and error handling),
 * then the shell with the sessions group's router in front, then an answer given after an await
 * (as every handler that reads something gives it), then the whole gate.
 * env: PORT, LAYER, SESSION_KEYS, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { service, requireFromFunctions } from "../lib/functions.ts";
import { silentLogger } from "../lib/service-deps.ts";
import { quietServiceDeps } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const { requireAccess } = service<any>("http/gate");
const sessions = service<any>("routes/sessions/sessions");

const layer = process.env.LAYER as string;
const deps = quietServiceDeps();

const plain = (_req: any, res: any) => res.json({ ok: true, personId: "bench" });
const gate = async (req: any, res: any) => {
  const { person } = await requireAccess(deps, req, { project: "startpage" });
  res.json({ ok: true, personId: person.id });
};

let app: any;
if (layer === "express") {
  app = express();
  app.get("/bench/gated", plain);
} else {
  const router = express.Router();
  if (layer !== "shell") router.use(sessions.routes(deps));
  const gated = express.Router();
  const later = async (req: any, res: any) => {
    await Promise.resolve();
    plain(req, res);
  };
  gated.get("/bench/gated", layer === "gate" ? gate : layer === "async" ? later : plain);
  router.use(gated);
  app = createApp(router, { presenter: jsonErrors, allowedOrigins: deps.config.allowedOrigins, log: silentLogger });
}
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
