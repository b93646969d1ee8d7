/**
 * The baseline: an express app that does sessions the conventional way — cookie-parser,
 * firebase-admin's verifySessionCookie (keys cached), and the person read from Firestore on
 * every request. env: PORT, FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT; prints a minted cookie.
 */
import { conventionalVerifier } from "../lib/conventional.ts";
import { requireFromFunctions } from "../lib/functions.ts";

const { initializeApp } = requireFromFunctions("firebase-admin/app");
const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
const express = requireFromFunctions("express");

initializeApp({ projectId: process.env.GCLOUD_PROJECT });
const db = getFirestore();
const { auth, mint } = await conventionalVerifier();

function cookieOf(req: any): string | null {
  const match = /(?:^|;\s*)__session=([^;]+)/.exec(req.headers.cookie ?? "");
  return match?.[1] ?? null;
}

async function personOf(req: any) {
  const cookie = cookieOf(req);
  if (!cookie) return null;
  const claims = await auth.verifySessionCookie(cookie, false).catch(() => null);
  if (!claims) return null;
  const snap = await db.collection("people").where("uids", "array-contains", claims.uid).limit(1).get();
  return snap.empty ? null : { uid: claims.uid, id: snap.docs[0].id, ...snap.docs[0].data() };
}

const app = express();
app.use(express.json());
app.post("/auth/session/refresh", async (req: any, res: any) => {
  const person = await personOf(req);
  if (!person) return res.status(401).json({ authenticated: false });
  res.json({
    authenticated: true,
    uid: person.uid,
    personId: person.id,
    email: person.emails?.[0],
    name: person.name,
    role: person.role,
    projects: person.projects,
    groups: person.groups,
  });
});
app.get("/bench/gated", async (req: any, res: any) => {
  const person = await personOf(req);
  if (!person) return res.status(401).json({ error: "Unauthorized" });
  if (person.status !== "approved" || !(person.projects.includes("*") || person.projects.includes("startpage")))
    return res.status(403).json({ error: "Forbidden" });
  res.json({ ok: true, personId: person.id });
});
app.listen(Number(process.env.PORT), "127.0.0.1", async () => {
  console.log(`cookie ${await mint(process.env.BENCH_UID as string, Math.floor(Date.now() / 1000))}`);
  console.log("ready");
});
process.on("SIGTERM", () => process.exit(0));
