import type { Auth, DecodedIdToken, UserRecord } from "firebase-admin/auth";
import type { Identity, ProviderAccount, ProviderSignIn, SignIn, VerifiedSignIn } from "../core/ports";
import { ADDRESS_CLAIM, CODES_CLAIM, METHODS_CLAIM, methodsOf, PASSKEY_CLAIM } from "../core/sessions/amr";
import { cryptoRandom } from "../random";

/** The identity provider's sign-in API: the local emulator when the stack runs one. */
function identityToolkit(): string {
  const emulator = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  return emulator
    ? `http://${emulator}/identitytoolkit.googleapis.com/v1`
    : "https://identitytoolkit.googleapis.com/v1";
}

/** `accounts:signInWithIdp`. Its error messages can quote the token, so only their code is kept. */
async function signInWithIdp(input: ProviderSignIn): Promise<SignIn> {
  const res = await fetch(`${identityToolkit()}/accounts:signInWithIdp?key=${encodeURIComponent(input.apiKey)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      postBody: new URLSearchParams({
        ...("idToken" in input.credential
          ? { id_token: input.credential.idToken }
          : { access_token: input.credential.accessToken }),
        providerId: input.providerId,
      }).toString(),
      requestUri: input.requestUri,
      returnSecureToken: true,
      returnIdpCredential: true,
    }),
    signal: input.signal,
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & { error?: { message?: unknown } };
  const code = (message: unknown) => (typeof message === "string" ? (message.split(/[ :]/)[0] ?? "") : "");
  if (!res.ok)
    throw new Error(`the identity provider refused the sign-in (${res.status} ${code(body.error?.message)})`);
  // One account per address: an address already signed in another way needs that account's owner to link it first.
  if (body.needConfirmation === true)
    throw new Error("the identity provider holds this address under another sign-in method (needConfirmation)");
  if (typeof body.errorMessage === "string")
    throw new Error(`the identity provider refused the sign-in (${code(body.errorMessage)})`);
  if (typeof body.localId !== "string" || body.localId === "")
    throw new Error("the identity provider named no account");
  return {
    uid: body.localId,
    email: typeof body.email === "string" && body.emailVerified === true ? body.email : null,
    phone: null,
    name: typeof body.displayName === "string" && body.displayName !== "" ? body.displayName : null,
    provider: input.providerId,
    account: nonEmpty(body.screenName) ?? nonEmpty(body.federatedId) ?? nonEmpty(body.email),
  };
}

/** Provider answers that mean "this credential is no good", as opposed to "I could not check". */
const REFUSALS = new Set([
  "auth/argument-error",
  "auth/id-token-expired",
  "auth/id-token-revoked",
  "auth/invalid-id-token",
  "auth/session-cookie-expired",
  "auth/session-cookie-revoked",
  "auth/invalid-session-cookie",
  "auth/user-disabled",
  "auth/user-not-found",
]);

function codeOf(err: unknown): string {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
}

function refused(err: unknown): boolean {
  return REFUSALS.has(codeOf(err));
}

const nonEmpty = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);

function toSignIn(t: DecodedIdToken): VerifiedSignIn {
  const provider = typeof t.firebase?.sign_in_provider === "string" ? t.firebase.sign_in_provider : "unknown";
  const identities = (t.firebase?.identities ?? {}) as Record<string, unknown>;
  const held = identities[provider];
  const ours = provider === "custom";
  return {
    authTime: new Date(t.auth_time * 1000),
    amr: methodsOf(t[METHODS_CLAIM], provider),
    // Only the service mints custom tokens, so only a sign-in of ours can have put these there.
    address: ours && typeof t[ADDRESS_CLAIM] === "string" ? t[ADDRESS_CLAIM] : null,
    passkeyId: ours && typeof t[PASSKEY_CLAIM] === "string" ? t[PASSKEY_CLAIM] : null,
    codesMadeAt: ours && typeof t[CODES_CLAIM] === "number" ? new Date(t[CODES_CLAIM]) : null,
    uid: t.uid,
    email: typeof t.email === "string" && t.email_verified === true ? t.email : null,
    phone: typeof t.phone_number === "string" ? t.phone_number : null,
    name: typeof t.name === "string" ? t.name : null,
    provider,
    account: Array.isArray(held) ? nonEmpty(held[0]) : null,
    // The token names every method linked to the account; `email` is the identity provider's own.
    linked: Object.keys(identities)
      .filter((id) => id !== "phone")
      .map((id) => (id === "email" ? "password" : id)),
  };
}

/**
 * `source` may be a function: the provider's SDK module is then loaded on the first call that
 * needs it, so a request that only reads our own session token never pays for loading it.
 */
export function firebaseIdentity(source: Auth | (() => Auth)): Identity {
  let loaded: Auth | undefined = typeof source === "function" ? undefined : source;
  const auth = (): Auth => (loaded ??= (source as () => Auth)());
  return {
    async verifyIdToken(token, checkRevoked) {
      try {
        return toSignIn(await auth().verifyIdToken(token, checkRevoked));
      } catch (err) {
        if (refused(err)) return null;
        throw err;
      }
    },
    async verifyProviderSessionCookie(cookie) {
      try {
        return toSignIn(await auth().verifySessionCookie(cookie, false));
      } catch (err) {
        if (refused(err)) return null;
        throw err;
      }
    },
    createCustomToken: (uid, amr, through = {}) =>
      auth().createCustomToken(uid, {
        [METHODS_CLAIM]: amr,
        ...(through.address === undefined ? {} : { [ADDRESS_CLAIM]: through.address }),
        ...(through.passkeyId === undefined ? {} : { [PASSKEY_CLAIM]: through.passkeyId }),
        ...(through.codesMadeAt === undefined ? {} : { [CODES_CLAIM]: through.codesMadeAt.getTime() }),
      }),
    async accountForEmail(email) {
      let user: UserRecord;
      try {
        user = await auth().getUserByEmail(email);
      } catch (err) {
        if (codeOf(err) !== "auth/user-not-found") throw err;
        return { uid: (await auth().createUser({ email, emailVerified: true })).uid, takenBack: false };
      }
      if (!user.emailVerified) {
        // Anyone can register an address they do not own; whoever did may hold its password, a
        // linked sign-in or a live session. The caller has just proved the mailbox, so all of
        // that is taken away before the address is marked verified and the account handed over.
        const others = user.providerData.map((p) => p.providerId).filter((id) => id !== "password" && id !== "phone");
        await auth().updateUser(user.uid, {
          password: cryptoRandom.token(32),
          ...(others.length > 0 ? { providersToUnlink: others } : {}),
          ...(user.phoneNumber ? { phoneNumber: null } : {}),
        });
        await auth().revokeRefreshTokens(user.uid);
        await auth().updateUser(user.uid, { emailVerified: true });
        return { uid: user.uid, takenBack: true };
      }
      return { uid: user.uid, takenBack: false };
    },
    async revokeSessions(uid) {
      try {
        await auth().revokeRefreshTokens(uid);
      } catch (err) {
        // An account the provider no longer holds has no sessions left to end.
        if (codeOf(err) !== "auth/user-not-found") throw err;
      }
    },
    signInWithProvider: signInWithIdp,
    async describeAccounts(uids) {
      const found: ProviderAccount[] = [];
      // The provider looks up at most 100 accounts at a time.
      for (let i = 0; i < uids.length; i += 100) {
        const { users } = await auth().getUsers(uids.slice(i, i + 100).map((uid) => ({ uid })));
        found.push(...users.map(accountOf));
      }
      return found;
    },
    async deleteAccounts(uids) {
      const failed: string[] = [];
      for (let i = 0; i < uids.length; i += 1000) {
        const chunk = uids.slice(i, i + 1000);
        const result = await auth().deleteUsers(chunk);
        // An account the provider no longer holds is as deleted as it can be.
        for (const e of result.errors)
          if (e.error.code !== "auth/user-not-found") failed.push(chunk[e.index] as string);
      }
      return failed;
    },
  };
}

function accountOf(user: UserRecord): ProviderAccount {
  return {
    uid: user.uid,
    email: user.email ?? null,
    emailVerified: user.emailVerified,
    phone: user.phoneNumber ?? null,
    displayName: user.displayName ?? null,
    providers: user.providerData.map((p) => ({
      provider: p.providerId,
      account: nonEmpty(p.uid),
      email: p.email ?? null,
    })),
    createdAt:
      nonEmpty(user.metadata.creationTime) === null ? null : new Date(user.metadata.creationTime).toISOString(),
    lastSignInAt:
      nonEmpty(user.metadata.lastSignInTime) === null ? null : new Date(user.metadata.lastSignInTime).toISOString(),
  };
}
