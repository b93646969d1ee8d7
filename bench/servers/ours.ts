/**
 * The service's own apps, served by a plain HTTP server: the sessions group (refresh) and a
 * probe route behind the shared gate, exactly as the functions build them.
 * env: PORT, SESSION_KEYS, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { service, requireFromFunctions } from "../lib/functions.ts";
import { silentLogger } from "../lib/service-deps.ts";
import { quietServiceDeps } from "../lib/mail-task.ts";

const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const { requireAccess } = service<any>("http/gate");
const sessions = service<any>("routes/sessions/sessions");

const ttl = process.env.PERSON_CACHE_TTL_MS;
const deps = quietServiceDeps({ personTtlMs: ttl === undefined ? undefined : Number(ttl) });

const gated = express.Router();
gated.get("/bench/gated", async (req: any, res: any) => {
  const { person } = await requireAccess(deps, req, { project: "startpage" });
  res.json({ ok: true, personId: person.id });
});
const router = express.Router();
router.use(sessions.routes(deps));
router.use(gated);
const app = createApp(router, { presenter: jsonErrors, allowedOrigins: deps.config.allowedOrigins, log: silentLogger });
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
