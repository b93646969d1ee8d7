/**
 * The service's own apps, served by a plain HTTP server: the sessions group (refresh) and a
 * probe route behind the shared gate, exactly as the functions build them.
 * env: PORT, SESSION_KEYS, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT.
 */
import { service, requireFromFunctions } from "../lib/functions.ts";

const { initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
const { getAuth } = requireFromFunctions("firebase-admin/auth");
const express = requireFromFunctions("express");
const { createApp } = service<any>("http/app");
const { jsonErrors } = service<any>("http/presenters");
const { requireAccess } = service<any>("http/gate");
const sessions = service<any>("routes/sessions");
const { tokensFor } = service<any>("deps");
const { personCache } = service<any>("core/person-cache");
const { systemClock } = service<any>("clock");
const { cryptoRandom } = service<any>("random");
const { firebaseIdentity } = service<any>("identity");
const { silentLogger } = service<any>("logger");
const { originsFor } = service<any>("config");

initializeApp({ projectId: process.env.GCLOUD_PROJECT });
const config = {
  parentDomain: "example.test",
  idUrl: "https://id.example.test",
  allowedOrigins: originsFor("example.test", "https://id.example.test", ["startpage"]),
  smtp: null,
  sessionKeys: process.env.SESSION_KEYS,
  codePepper: "",
  idpSigningSecret: "",
};
const deps = {
  config,
  store: getFirestore(),
  clock: systemClock,
  random: cryptoRandom,
  log: silentLogger,
  identity: firebaseIdentity(getAuth()),
  tokens: tokensFor(config),
  people: personCache(systemClock, Number(process.env.PERSON_CACHE_TTL_MS ?? 30_000)),
};

const gated = express.Router();
gated.get("/bench/gated", async (req: any, res: any) => {
  const { person } = await requireAccess(deps, req, { project: "startpage" });
  res.json({ ok: true, personId: person.id });
});
const router = express.Router();
router.use(sessions.routes(deps));
router.use(gated);
const app = createApp(router, { presenter: jsonErrors, allowedOrigins: config.allowedOrigins, log: silentLogger });
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
