/**
 * `npm run bench:invitation-mail`: a file of 1,000 invitations (BENCH_INVITATION_MAIL=N for
 * another number) given to the operator CLI, `people invite --file`, against a running local stack,
 * as a new operator would; then nothing but the dev inbox is read. It measures how long the command
 * takes, and how long after it exits the first, the half and the last of the invitations arrive,
 * sent by the stack's own `mail` function, woken through its Cloud Tasks emulator by the command.
 * Exits 1 when one has not arrived within 15 minutes of the command's exit. The invitations it made
 * are deleted at the end, so the stack's `/invite` page lists no more than before.
 *
 * The stack: `npm start`'s (found as the CLI finds it, `.stack/local-stack.json`), or the one the
 * environment names as the test suite does (STACK_MAIL_URL with FIRESTORE_EMULATOR_HOST,
 * FIREBASE_AUTH_EMULATOR_HOST, CLOUD_TASKS_EMULATOR_HOST and GCLOUD_PROJECT). Writes section 10
 * of bench/RESULTS.md (`--no-write` prints it only).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireFromFunctions, root, service } from "./lib/functions.ts";
import { machineLoad } from "./lib/procs.ts";
import { writeSection } from "./lib/results.ts";

const ROWS = Number(process.env.BENCH_INVITATION_MAIL ?? 1000);
const WITHIN_MS = 15 * 60_000;
const write = !process.argv.includes("--no-write");

/** The stack's dev inbox, its Firestore and its project. */
function stack(): { inbox: string; firestore: string; project: string } {
  const env = process.env;
  if (env.STACK_MAIL_URL && env.FIRESTORE_EMULATOR_HOST && env.GCLOUD_PROJECT)
    return { inbox: env.STACK_MAIL_URL, firestore: env.FIRESTORE_EMULATOR_HOST, project: env.GCLOUD_PROJECT };
  const file = join(root, ".stack", "local-stack.json");
  if (!existsSync(file)) throw new Error("no stack: start one with `npm start`, or name one in the environment");
  const found = JSON.parse(readFileSync(file, "utf8")) as {
    project: string;
    ports: { firestore: number };
    urls: { mail: string };
  };
  return { inbox: found.urls.mail, firestore: `127.0.0.1:${found.ports.firestore}`, project: found.project };
}

/** The invitations this run made, deleted once mailed: the stack's /invite page lists no more than before. */
async function forget(where: ReturnType<typeof stack>, addresses: string[]): Promise<void> {
  process.env.FIRESTORE_EMULATOR_HOST = where.firestore;
  const { initializeApp } = requireFromFunctions("firebase-admin/app");
  const { getFirestore } = requireFromFunctions("firebase-admin/firestore");
  const { invitationId } = service<{ invitationId(address: string): string }>("store/invitations");
  const db = getFirestore(initializeApp({ projectId: where.project }, "bench-invitation-mail"));
  for (let i = 0; i < addresses.length; i += 400) {
    const batch = db.batch();
    for (const a of addresses.slice(i, i + 400)) batch.delete(db.collection("invitations").doc(invitationId(a)));
    await batch.commit();
  }
}

const where = stack();
const inbox = where.inbox;
const loadAtStart = machineLoad();
const run = randomBytes(3).toString("hex");
const addresses = Array.from({ length: ROWS }, (_, i) => `mail-${run}-${i}@school.example`);
const file = join(mkdtempSync(join(tmpdir(), "invitation-mail-")), "people.csv");
writeFileSync(
  file,
  [
    "address,name,projects,groups",
    ...addresses.map((a, i) => `${a},Pupil ${i},calendar;location,class-${i % 30}`),
  ].join("\n"),
);

const started = performance.now();
const cli = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
  execFile(
    process.execPath,
    // `npm run operator`'s own entry, as an operator runs it (it builds the functions first if they changed).
    [join(root, "tools", "operator.ts"), "people", "invite", "--file", file, "--json"],
    { maxBuffer: 64 * 1024 * 1024 },
    (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
  ),
);
const exited = performance.now();
if (cli.code !== 0) {
  console.error(`the command failed (exit ${cli.code}): ${cli.stderr}`);
  process.exit(1);
}
const invited = (JSON.parse(cli.stdout) as { counts: { invited: number } }).counts.invited;

// From here on nothing but the inbox is asked: no request that could wake the stack's mail.
const wanted = new Set(addresses);
const arrivedAt = new Map<string, number>();
while (arrivedAt.size < wanted.size && performance.now() - exited < WITHIN_MS) {
  const res = await fetch(`${inbox}/email`);
  const mails = (await res.json()) as Array<{ envelope?: { to?: Array<{ address: string }> } }>;
  const now = performance.now();
  for (const mail of mails)
    for (const to of mail.envelope?.to ?? [])
      if (wanted.has(to.address) && !arrivedAt.has(to.address)) arrivedAt.set(to.address, now - exited);
  if (arrivedAt.size < wanted.size) await new Promise((resolve) => setTimeout(resolve, 2_000));
}

const times = [...arrivedAt.values()].sort((a, b) => a - b);
const s = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms / 1000).toFixed(0)} s`);
const at = (share: number) => times[Math.max(0, Math.ceil(share * ROWS) - 1)];
const lines = [
  "## 10. Invitations' mail from the operator CLI on the local stack (`npm run bench:invitation-mail`)",
  "",
  `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, load average ${loadAtStart} at the start. ${ROWS} rows given to \`npm run operator -- people invite --file\`; after it exited, nothing but the dev inbox was read (polled every 2 s), so every mail was sent by the stack's \`mail\` function, woken by the task the command left in the Cloud Tasks emulator.`,
  "",
  "| What | Time |",
  "|---|---|",
  `| The command, start to exit (${invited} invited) | ${s(exited - started)} |`,
  `| After its exit: the first invitation in the inbox | ${s(times[0])} |`,
  `| … half of them | ${s(at(0.5))} |`,
  `| … every one (${arrivedAt.size} of ${ROWS}) | ${arrivedAt.size === ROWS ? s(times[times.length - 1]) : `not within ${WITHIN_MS / 60_000} min`} |`,
];
console.log(lines.join("\n"));
if (write) writeSection("invitation-mail", lines, "soak");
await forget(where, addresses);
process.exit(arrivedAt.size === ROWS && invited === ROWS ? 0 : 1);
