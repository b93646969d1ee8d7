/** `doctor`: what is set (names only), what answers, what the settings resolve to. */
import { existsSync, readFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { getAuth } from "firebase-admin/auth";
import { readConfig } from "../config";
import * as params from "../params";
import { errorText } from "../logger";
import { ping } from "../store/db";
import type { Command, Context } from "./cli";

const FUNCTIONS_DIR = join(__dirname, "..", "..");
const REPO_DIR = join(FUNCTIONS_DIR, "..");
/** Without these the service cannot sign anyone in. */
const REQUIRED = ["SESSION_KEYS", "CODE_PEPPER", "SMTP_HOST"];

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  required: boolean;
}

/** NAME=value lines of a dotenv-style file; values never leave this module except into process.env. */
function envFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0 || line.trimStart().startsWith("#")) continue;
    const raw = line.slice(eq + 1).trim();
    out[line.slice(0, eq).trim()] = /^'.*'$/s.test(raw) || /^".*"$/s.test(raw) ? raw.slice(1, -1) : raw;
  }
  return out;
}

/** The files the Firebase CLI reads params (and, on the emulators, secrets) from, in its order. */
function settingsFiles(ctx: Context): string[] {
  const files = [".env", `.env.${ctx.target.projectId}`];
  if (ctx.target.emulators) files.push(".env.local", ".secret.local");
  return files.map((f) => join(FUNCTIONS_DIR, f));
}

function declared(): Array<{ name: string; secret: boolean }> {
  return Object.values(params)
    .filter((p): p is typeof params.parentDomain => typeof p === "object" && p !== null && "name" in p)
    .map((p) => ({ name: p.name, secret: p.constructor.name.includes("Secret") }));
}

function smtpAnswers(host: string, port: number, secure: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = secure ? tlsConnect({ host, port, servername: host }) : tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} in 5 s`));
    }, 5_000);
    socket.once("data", (data) => {
      clearTimeout(timer);
      socket.end("QUIT\r\n");
      const greeting = data.toString("utf8").split("\r\n")[0] ?? "";
      if (greeting.startsWith("220")) resolve(greeting);
      else reject(new Error(`unexpected greeting: ${greeting.slice(0, 80)}`));
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Ten seconds for an answer: the client libraries would otherwise retry an unreachable host for a minute. */
const PROBE_MS = 10_000;

async function probe(name: string, required: boolean, work: () => Promise<string>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${PROBE_MS / 1000} s`)), PROBE_MS);
  });
  try {
    return { name, ok: true, detail: await Promise.race([work(), late]), required };
  } catch (err) {
    return { name, ok: false, detail: errorText(err).split("\n")[0] ?? "", required };
  } finally {
    clearTimeout(timer);
  }
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "which settings are set (names only), whether mail, the identity provider and Firestore answer",
  usage: "doctor",
  positionals: [0, 0],
  async run(ctx) {
    const files = settingsFiles(ctx);
    for (const file of files) for (const [name, value] of Object.entries(envFile(file))) process.env[name] ??= value;
    const settings = declared().map(({ name, secret }) => ({
      name,
      secret,
      set: (process.env[name] ?? "") !== "",
    }));
    const checks: Check[] = settings
      .filter((s) => REQUIRED.includes(s.name))
      .map((s) => ({
        name: s.name,
        ok: s.set || (!ctx.target.emulators && s.secret),
        // In production the secrets live in Secret Manager, which this does not read.
        detail: s.set
          ? "set"
          : s.secret && !ctx.target.emulators
            ? `check: firebase functions:secrets:get ${s.name}`
            : "not set",
        required: true,
      }));
    const config = readConfig();
    const deps = ctx.deps();
    const smtp = config.smtp;
    checks.push(
      ...(await Promise.all([
        probe("firestore", true, async () => {
          await ping(deps.store);
          return "answers";
        }),
        probe("identity provider", true, async () => {
          await getAuth().listUsers(1);
          return "answers";
        }),
        smtp === null
          ? { name: "mail (SMTP)", ok: false, detail: "SMTP_HOST is not set: email codes answer 503", required: true }
          : probe("mail (SMTP)", true, () => smtpAnswers(smtp.host, smtp.port, smtp.secure)),
      ])),
    );
    const firebaseJson = join(REPO_DIR, "firebase.json");
    const hosting = existsSync(firebaseJson)
      ? ((JSON.parse(readFileSync(firebaseJson, "utf8")) as { hosting?: unknown }).hosting ?? [])
      : [];
    const sites = (Array.isArray(hosting) ? hosting : [hosting]).map(
      (h: {
        target?: string;
        site?: string;
        rewrites?: Array<{ source?: string; function?: { functionId?: string } | string; destination?: string }>;
      }) => ({
        site: h.target ?? h.site ?? "(default)",
        rewrites: (h.rewrites ?? []).map((r) => ({
          source: r.source ?? "",
          to: typeof r.function === "string" ? r.function : (r.function?.functionId ?? r.destination ?? ""),
        })),
      }),
    );
    const report = {
      target: ctx.target,
      settingsFiles: files.filter((f) => existsSync(f)),
      settings,
      parentDomain: config.parentDomain,
      serviceUrl: config.serviceUrl,
      idUrl: config.idUrl,
      allowedOrigins: config.allowedOrigins,
      hosting: sites,
      checks,
      ok: checks.every((c) => c.ok || !c.required),
    };
    const text = [
      `target: ${ctx.target.projectId}${ctx.target.emulators ? " (emulators)" : ""}`,
      `settings (${report.settingsFiles.length} file(s) read; names only):`,
      ...settings.map((s) => `  ${s.set ? "set    " : "not set"}  ${s.name}${s.secret ? " (secret)" : ""}`),
      `parent domain: ${config.parentDomain}`,
      `service: ${config.serviceUrl}   identity host: ${config.idUrl}`,
      `CORS allowlist: ${config.allowedOrigins.join(" ")}`,
      "hosting:",
      ...sites.map(
        (s) =>
          `  ${s.site}: ${s.rewrites.length} rewrite(s)${s.rewrites.length ? ` (${[...new Set(s.rewrites.map((r) => r.to))].join(", ")})` : ""}`,
      ),
      "checks:",
      ...checks.map((c) => `  ${c.ok ? "ok  " : "FAIL"}  ${c.name}: ${c.detail}`),
      report.ok ? "all required checks pass" : "something required is missing or unreachable",
    ].join("\n");
    ctx.print(text, report);
    if (!report.ok) process.exitCode = 1;
  },
};
