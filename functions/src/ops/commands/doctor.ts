/**
 * `doctor`: whether the deployment can work. Its settings (names only), its secrets read as the
 * functions read them, its addresses against each other and against placeholders, whether
 * Firestore, the identity provider and mail answer, the erasures not finished yet (and for how
 * long), the mail waiting in the outbox, who may register OpenID Connect clients (and how many wait for a review), whether each app
 * subscribed to events answers, and, only when asked, a test mail.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { appHostList } from "../../config/config";
import { canonicalEmail } from "../../core/email-address";
import { errorText } from "../../logger";
import { cryptoRandom } from "../../random";
import * as params from "../../config/params";
import { ping } from "../../store/db";
import * as clientStore from "../../store/oidc-clients";
import { selfRegistered } from "../../core/model/oidc-client";
import { hookDeliveries, listHooks } from "../../core/events/hooks";
import { DELIVERIES_READ, subscriptionHealth } from "../doctor/subscriptions";
import { backchannelHealth, LOGOUTS_READ } from "../doctor/backchannel";
import { ofKindAbout } from "../../store/outbox";
import type { Hook } from "../../core/model/hook";
import { one, type Command } from "../cli";
import type { Context } from "../context";
import { checkAddresses } from "../doctor/addresses";
import { checkErasures } from "../doctor/erasures";
import { unfinishedErasures } from "../../store/personal-data";
import { withDeadline } from "../../core/deadline";
import { readSecrets } from "../doctor/secrets";
import { ROOT, shown } from "../local-stack";
import { listening, probe, smtpAnswers, type Check } from "../probes";
import { UsageError } from "../refusals";
import { loadSettings } from "../settings";
import { addressRulesText } from "../address-rules";
import { ruleInForce } from "../../core/people/passkey-rule";
import { OUTBOX_STALE_SECONDS, outboxCheck } from "../../core/status/health";
import { ruleText } from "./passkey-rule";
import { passkeyRuleVerdict } from "../doctor/passkey-rule";

const ALL_SECRETS = [
  params.sessionKeys,
  params.codePepper,
  params.smtpPassword,
  params.idpSigningSecret,
  params.federatedClientSecrets,
];

function declared(): Array<{ name: string; secret: boolean }> {
  return Object.values(params)
    .filter((p): p is typeof params.parentDomain => typeof p === "object" && p !== null && "name" in p)
    .map((p) => ({ name: p.name, secret: p.constructor.name.includes("Secret") }));
}

function hostingSites() {
  const file = join(ROOT, "firebase.json");
  const hosting = existsSync(file)
    ? ((JSON.parse(readFileSync(file, "utf8")) as { hosting?: unknown }).hosting ?? [])
    : [];
  type Site = { target?: string; site?: string; rewrites?: Array<{ function?: { functionId?: string } | string }> };
  return (Array.isArray(hosting) ? (hosting as Site[]) : [hosting as Site]).map((h) => ({
    site: h.target ?? h.site ?? "(default)",
    functions: [
      ...new Set(
        (h.rewrites ?? []).map((r) => (typeof r.function === "string" ? r.function : (r.function?.functionId ?? ""))),
      ),
    ],
  }));
}

/** Firestore, the identity provider and mail; mail to `testTo` only when it is given. */
async function services(ctx: Context, credentials: boolean, testTo: string | null): Promise<Check[]> {
  const { target } = ctx;
  const cannot = (name: string): Check => ({
    name,
    ok: false,
    detail: "cannot check, because there are no credentials",
    required: true,
  });
  const backend = async (name: string, at: string | null, work: () => Promise<void>) => {
    if (!credentials) return cannot(name);
    return probe(name, async () => {
      if (at !== null) await listening(at);
      await work();
      return `answers${at === null ? "" : ` at ${at}`}`;
    });
  };
  let deps: ReturnType<Context["deps"]> | null = null;
  try {
    deps = ctx.deps();
  } catch (err) {
    return [{ name: "settings", ok: false, detail: errorText(err), required: true }];
  }
  const { store, mailer, config } = deps;
  const smtp = config.smtp;
  const checks = await Promise.all([
    backend("firestore", target.firestore, () => ping(store)),
    backend("identity provider", target.auth, async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      await (require("firebase-admin/auth") as typeof import("firebase-admin/auth")).getAuth().listUsers(1);
    }),
    smtp === null
      ? { name: "mail (SMTP)", ok: false, detail: "SMTP_HOST is not set: email codes answer 503", required: true }
      : probe("mail (SMTP)", () => smtpAnswers(smtp.host, smtp.port, smtp.secure)),
  ]);
  // The erasures not finished yet, with how long: read once Firestore has answered.
  if (credentials && checks[0]?.ok === true) checks.push(await erasures(deps));
  if (credentials) checks.push(await passkeyRuleCheck(ctx, deps));
  if (credentials) checks.push(await registrationCheck(deps));
  if (credentials && checks[0]?.ok === true) checks.push(await outboxBacklog(deps));
  // Each app's subscription to events: whether its address answers at all (a HEAD, nothing
  // delivered), and what its deliveries last said. Not required: the service works without them.
  if (credentials) {
    const subscriptions = await listHooks(deps).catch(() => []);
    checks.push(...(await Promise.all(subscriptions.map((hook) => subscriptionCheck(deps, hook)))));
    // Each client told of sign-outs (a back-channel logout address): how its latest logout tokens went.
    const told = (await withDeadline(clientStore.list(deps.store), 10_000).catch(() => [])).filter(
      (c) => c.backchannelLogoutUri !== null && !c.disabled,
    );
    checks.push(...(await Promise.all(told.map((c) => logoutCheck(deps, c.clientId)))));
  }
  if (testTo !== null && mailer !== null) {
    const text = "The identity service's doctor sent this to check that its mail reaches people.";
    checks.push(
      await probe("test mail", async () => {
        const messageId = `<doctor-${cryptoRandom.id()}@${ctx.config().parentDomain}>`;
        await mailer.send({ to: testTo, subject: "Mail check", text, html: `<p>${text}</p>` }, { messageId });
        return `accepted for delivery to ${testTo}`;
      }),
    );
  }
  return checks;
}

/** Every erasure begun and not finished, judged by how long it has been (doctor/erasures). */
async function erasures(deps: ReturnType<Context["deps"]>): Promise<Check> {
  try {
    return checkErasures(await withDeadline(unfinishedErasures(deps.store), 10_000), deps.clock.now());
  } catch (err) {
    return { name: "erasures", ok: false, detail: `could not be read: ${errorText(err)}`, required: false };
  }
}

/**
 * The passkey rule: on a real project it must hold administrators (their power is every site's
 * door, and an email code can be relayed by a look-alike page), so doctor fails while it does
 * not. The local stack runs it off by default (its seeded administrator signs in by password).
 */
async function passkeyRuleCheck(ctx: Context, deps: ReturnType<Context["deps"]>): Promise<Check> {
  const local = ctx.target.emulators;
  return probe(
    "passkey rule",
    async () => {
      const r = await ruleInForce(deps);
      const text = ruleText(r, deps.clock.now()).split("\n")[0] as string;
      const verdict = passkeyRuleVerdict(r.rule.roles, local);
      if (!verdict.ok) throw new Error(`${text}. ${verdict.advice as string}`);
      return verdict.advice === null ? text : `${text}; ${verdict.advice}`;
    },
    !local,
  );
}

/**
 * The mail waiting in the outbox, as GET /status judges it: a warning once the oldest has waited
 * longer than OUTBOX_STALE_SECONDS (no drain is sending: the task queue, or the mail server).
 */
async function outboxBacklog(deps: ReturnType<Context["deps"]>): Promise<Check> {
  const backlog = await outboxCheck(deps);
  const detail =
    backlog.error !== undefined
      ? `could not be read: ${backlog.error}`
      : `${backlog.pending ?? 0} waiting to be sent; ` +
        (backlog.oldestSeconds == null
          ? "none is late"
          : `the oldest for ${backlog.oldestSeconds} s (late past ${OUTBOX_STALE_SECONDS} s)`);
  return { name: "outbox", ok: backlog.ok, detail, required: false };
}

/**
 * Who may register OpenID Connect clients (OIDC_REGISTRATION), and the clients that registered
 * themselves: how many, and how many wait for a review. Never a failure: each policy is a choice.
 */
async function registrationCheck(deps: ReturnType<Context["deps"]>): Promise<Check> {
  return probe(
    "client registration",
    async () => {
      const policy = deps.config.oidcRegistration.policy;
      if (policy === "closed") return "closed: only the operator registers clients";
      const self = (await withDeadline(clientStore.list(deps.store), 10_000)).filter(selfRegistered);
      const waiting = self.filter((c) => c.review === "waiting").length;
      const blocked = self.filter((c) => c.review === "blocked").length;
      const counts = `${self.length} registered themselves, ${waiting} waiting for review, ${blocked} blocked`;
      return policy === "open"
        ? `open: clients register themselves and are usable at once, each asking people's consent; ${counts}`
        : `reviewed: a client that registers itself waits for \`clients approve\`; ${counts}`;
    },
    false,
  );
}

/**
 * One app's subscription: its address answers (any status below 500), and its deliveries' health
 * (doctor/subscriptions): failures in a row, a day with none delivered, deliveries given up.
 */
async function subscriptionCheck(deps: ReturnType<Context["deps"]>, hook: Hook): Promise<Check> {
  const latest = await withDeadline(hookDeliveries(deps, hook.app, DELIVERIES_READ), 10_000).catch(() => null);
  const givenUp = latest?.filter((d) => d.state === "failed").length ?? 0;
  const health = subscriptionHealth(hook, givenUp, deps.clock.now());
  const unread = latest === null ? "; its deliveries could not be read" : "";
  return probe(
    `events to ${hook.app}`,
    async () => {
      if (hook.disabled) return `disabled; ${health.detail}${unread}`;
      const res = await fetch(hook.url, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(5_000) });
      if (res.status >= 500) throw new Error(`${hook.url} answers ${res.status}; ${health.detail}${unread}`);
      if (!health.ok || latest === null) throw new Error(`${hook.url} answers; ${health.detail}${unread}`);
      return `${hook.url} answers; ${health.detail}`;
    },
    false,
  );
}

/** One client's back-channel logout: its latest logout tokens (doctor/backchannel). Not required. */
async function logoutCheck(deps: ReturnType<Context["deps"]>, clientId: string): Promise<Check> {
  return probe(
    `logout to ${clientId}`,
    async () => {
      const latest = await withDeadline(ofKindAbout(deps.store, "backchannel-logout", clientId, LOGOUTS_READ), 10_000);
      const health = backchannelHealth(clientId, latest, deps.clock.now());
      if (!health.ok) throw new Error(health.detail);
      return health.detail;
    },
    false,
  );
}

export const doctorCommand: Command = {
  name: "doctor",
  summary:
    "whether the deployment can work: settings, secrets, addresses, Firestore, identity provider, mail, erasures, the passkey rule, client registration, the outbox, apps' subscriptions and back-channel logouts",
  usage: "doctor [--send-test-mail <address>]",
  options: { "send-test-mail": { type: "string" } },
  positionals: [0, 0],
  async run(ctx, _args, values) {
    const { target } = ctx;
    const rawTo = one(values, "send-test-mail");
    const testTo = rawTo === undefined ? null : canonicalEmail(rawTo);
    if (rawTo !== undefined && testTo === null) throw new UsageError(`"${rawTo}" is not an email address`);
    const files = loadSettings(target, true);
    const used = params.inUse(ALL_SECRETS).map((s) => s.name);
    const secrets = await readSecrets(target, used);
    const settings = declared()
      .filter((s) => !s.secret)
      .map(({ name }) => ({ name, set: (process.env[name] ?? "") !== "" }));
    let addressChecks: Check[] = [];
    let resolved: Record<string, unknown> = {};
    let rules: string | null = null;
    try {
      const config = ctx.config();
      rules = addressRulesText(config.addressRules);
      const addresses = {
        parentDomain: config.parentDomain,
        serviceUrl: config.serviceUrl,
        idUrl: config.idUrl,
        appHosts: appHostList(),
        allowedOrigins: config.allowedOrigins,
        mailFrom: config.smtp?.from ?? null,
        idpApiKey: params.idpApiKey.value(),
        addressRules: config.addressRules,
      };
      addressChecks = checkAddresses(addresses, !target.emulators);
      resolved = addresses;
    } catch (err) {
      addressChecks = [{ name: "settings", ok: false, detail: errorText(err), required: true }];
    }
    const reachable = addressChecks.some((c) => c.name === "settings")
      ? []
      : await services(ctx, secrets.token, testTo);
    const checks = [...secrets.checks, ...addressChecks, ...reachable];
    const notUsed = ALL_SECRETS.map((s) => s.name).filter((n) => !used.includes(n));
    const ok = checks.every((c) => c.ok || !c.required);
    const sites = hostingSites();
    const mark = (c: Check) => (c.ok ? "ok  " : c.required ? "FAIL" : "warn");
    const text = [
      `target: ${target.projectId} (${target.emulators ? "local emulators" : "a real project"}; chosen by ${target.chosenBy})`,
      `settings files: ${files.length === 0 ? "(none)" : files.map(shown).join(", ")}`,
      `params set: ${
        settings
          .filter((s) => s.set)
          .map((s) => s.name)
          .join(", ") || "(none: defaults)"
      }`,
      ...(notUsed.length > 0
        ? [`secrets this deployment does not use (no function declares them): ${notUsed.join(", ")}`]
        : []),
      `hosting sites (firebase.json): ${sites.map((s) => `${s.site} (${s.functions.length} function(s))`).join(", ")}`,
      ...(rules === null ? [] : [rules]),
      "checks:",
      ...checks.map((c) => `  ${mark(c)}  ${c.name}: ${c.detail}`),
      ok ? "all required checks pass" : "something required is missing, wrong or unreachable",
    ];
    if (testTo === null) text.push("(no mail was sent; --send-test-mail <address> sends one)");
    ctx.print(text.join("\n"), {
      target,
      settingsFiles: files,
      settings,
      secretsInUse: used,
      secretsNotUsed: notUsed,
      ...resolved,
      hosting: sites,
      checks,
      ok,
    });
    if (!ok) process.exitCode = 1;
  },
};
