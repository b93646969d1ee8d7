import { Router, type Request, type Response } from "express";
import { asSelf, browserOf } from "../../http/acting";
import { z } from "zod";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Deps } from "../../core/deps";
import { ensure } from "../../core/errors";
import { passkeysAndRule, passkeyView, removePasskey, renamePasskey } from "../../core/passkeys/passkeys";
import { registerPasskey, registrationOptions, type Registrant } from "../../core/passkeys/registration";
import { CHALLENGE_LIFETIME_MS, NAME_MAX } from "../../core/passkeys/rules";
import { signInOptions, signInWithPasskey } from "../../core/passkeys/sign-in";
import { makeRecoveryCodes, recoveryCodesLeft, signInWithRecoveryCode } from "../../core/passkeys/recovery-codes";
import { parseBody } from "../../http/body";
import { callerOf } from "../../http/caller";
import { clearPasskeyBindingCookie, readPasskeyBindings, setPasskeyBindingCookie } from "../../http/cookies";
import { requireAccess } from "../../http/gate";
import { jsonErrors, refusalsCounted } from "../../http/presenters";

export const presenter = jsonErrors;

/**
 * Every path of the group. The sign-in's binding cookie is scoped to SIGN_IN, so it reaches the
 * sign-in's two endpoints and nothing else (and the session cookie, sent second there, is not
 * needed there); no endpoint that reads the session may live under it.
 */
const SIGN_IN = "/auth/passkeys/sign-in";
export const PATHS = {
  registerOptions: "/auth/passkeys/register/options",
  registerVerify: "/auth/passkeys/register/verify",
  signInOptions: `${SIGN_IN}/options`,
  signInVerify: `${SIGN_IN}/verify`,
  list: "/auth/passkeys",
  recoveryCodes: "/auth/passkeys/recovery-codes",
  recoverySignIn: "/auth/passkeys/recovery/sign-in",
  one: "/auth/passkeys/:passkeyId",
} as const;

const SESSION = { cookieOnly: true } as const;

/** The session's approved person, its account, the session's key and when they signed in. */
async function registrant(deps: Deps, req: Request): Promise<Registrant> {
  const { person, uid, principal } = await requireAccess(deps, req, SESSION);
  // A session cookie always has a key; a registration is bound to it.
  ensure(principal.sessionKey !== null, "unauthorized");
  const from = browserOf(req);
  return { person, uid, sessionKey: principal.sessionKey, authTime: principal.authTime, amr: principal.amr, from };
}

const base64url = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]*$/);
const credentialId = base64url.min(1).max(1400);
/**
 * The credential as the browser's WebAuthn JSON (WebAuthn L3 toJSON, @simplewebauthn/browser)
 * gives it. The body itself is strict; inside the credential, fields this service does not read
 * (browsers add some, and extension outputs vary) are dropped, never stored.
 */
const credentialOf = <T extends z.ZodRawShape>(response: T) =>
  z.object({
    id: credentialId,
    rawId: credentialId,
    type: z.literal("public-key"),
    response: z.object(response),
    authenticatorAttachment: z.string().max(32).optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  });

const attestation = credentialOf({
  clientDataJSON: base64url,
  attestationObject: base64url,
  authenticatorData: base64url.optional(),
  transports: z.array(z.string().max(32)).max(10).optional(),
  publicKeyAlgorithm: z.number().int().optional(),
  publicKey: base64url.optional(),
});
const assertion = credentialOf({
  clientDataJSON: base64url,
  authenticatorData: base64url,
  signature: base64url,
  userHandle: base64url.optional(),
});
/** A name as a person types it: trimmed, control and format characters refused, at most NAME_MAX. */
const name = z
  .string()
  .trim()
  .min(1)
  .max(NAME_MAX)
  .refine((n) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(n));

const noBody = z.object({}).strict();

export function routes(deps: Deps): Router {
  const router = Router();
  const { parentDomain } = deps.config;

  router.post(PATHS.registerOptions, async function registerOptions(req: Request, res: Response) {
    await parseBody(req, noBody, "passkey_fields_required");
    res.json({ options: await registrationOptions(deps, await registrant(deps, req)) });
  });

  const registerBody = z.object({ credential: attestation, name: z.unknown().optional() }).strict();
  router.post(PATHS.registerVerify, async function register(req: Request, res: Response) {
    const body = await parseBody(req, registerBody, "passkey_fields_required");
    const chosen = name.optional().safeParse(body.name);
    ensure(chosen.success, "passkey_name_invalid");
    const who = await registrant(deps, req);
    const passkey = await registerPasskey(deps, who, body.credential as RegistrationResponseJSON, chosen.data ?? null);
    res.status(201).json(passkeyView(passkey));
  });

  // Public, and the same for everyone: no credential is named, so nothing says who has a passkey.
  router.post(PATHS.signInOptions, async function signInOptionsEndpoint(req: Request, res: Response) {
    await parseBody(req, noBody, "passkey_fields_required");
    // One binding per browser, kept while it signs in (tabs share it), renewed with each challenge.
    const binding = readPasskeyBindings(req)[0] ?? deps.random.token(32);
    const options = await signInOptions(deps, binding);
    setPasskeyBindingCookie(res, parentDomain, SIGN_IN, binding, CHALLENGE_LIFETIME_MS);
    res.json({ options });
  });

  const signInBody = z.object({ credential: assertion }).strict();
  router.post(
    PATHS.signInVerify,
    refusalsCounted(deps.counts, "signIns"),
    async function signIn(req: Request, res: Response) {
      const { credential } = await parseBody(req, signInBody, "passkey_fields_required");
      const customToken = await signInWithPasskey(
        deps,
        credential as AuthenticationResponseJSON,
        readPasskeyBindings(req),
      );
      clearPasskeyBindingCookie(res, parentDomain, SIGN_IN);
      res.json({ customToken });
    },
  );

  // Recovery codes: how many are left, a new set (shown this once), and signing in with one.
  router.get(PATHS.recoveryCodes, async function recoveryCodesState(req: Request, res: Response) {
    const { person } = await requireAccess(deps, req, SESSION);
    res.json(await recoveryCodesLeft(deps, person.id));
  });

  router.post(PATHS.recoveryCodes, async function newRecoveryCodes(req: Request, res: Response) {
    await parseBody(req, noBody, "passkey_fields_required");
    const { person, principal } = await requireAccess(deps, req, SESSION);
    // A session cookie always has a key; the codes record what it came in through.
    ensure(principal.sessionKey !== null, "unauthorized");
    const maker = {
      person,
      sessionKey: principal.sessionKey,
      signedInAt: principal.authTime,
      amr: principal.amr,
      from: browserOf(req),
    };
    res.status(201).json({ codes: await makeRecoveryCodes(deps, maker) });
  });

  const recoveryBody = z.object({ email: z.string().max(320), code: z.string().max(64) }).strict();
  // Public: each guess is counted against where it comes from before anything is read, the code is
  // judged first, and an address on nobody is answered as a wrong code is.
  router.post(
    PATHS.recoverySignIn,
    refusalsCounted(deps.counts, "signIns"),
    async function recoverySignIn(req: Request, res: Response) {
      const { email, code } = await parseBody(req, recoveryBody, "recovery_fields_required");
      const from = callerOf(req, deps.config.clientAddressHops);
      res.json({ customToken: await signInWithRecoveryCode(deps, email, code, from) });
    },
  );

  router.get(PATHS.list, async function list(req: Request, res: Response) {
    const { person, principal } = await requireAccess(deps, req, SESSION);
    const { passkeys, rule } = await passkeysAndRule(deps, person, principal.amr);
    res.json({ passkeys: passkeys.map(passkeyView), rule });
  });

  const renameBody = z.object({ name: z.unknown() }).strict();
  router.patch(PATHS.one, async function rename(req: Request, res: Response) {
    const body = await parseBody(req, renameBody, "passkey_name_invalid");
    const chosen = name.safeParse(body.name);
    ensure(chosen.success, "passkey_name_invalid");
    const { person } = await requireAccess(deps, req, SESSION);
    res.json(passkeyView(await renamePasskey(deps, person.id, String(req.params.passkeyId), chosen.data)));
  });

  router.delete(PATHS.one, async function remove(req: Request, res: Response) {
    const access = await requireAccess(deps, req, SESSION);
    await removePasskey(deps, access.person.id, String(req.params.passkeyId), asSelf(access, req));
    res.json({ ok: true });
  });

  return router;
}
