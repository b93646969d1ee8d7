/** Sign-ins at the Auth emulator, through its REST API as a browser would, and admin shortcuts. */
import { auth, unique } from "./deps";

const authHost = () => `http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}`;
const project = () => process.env.GCLOUD_PROJECT as string;

async function identityToolkit(method: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${authHost()}/identitytoolkit.googleapis.com/v1/accounts:${method}?key=any`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export interface Account {
  uid: string;
  email: string;
  password: string;
  idToken: string;
}

/** A new account with a verified address, signed in: its ID token is fresh. */
export async function signedUp(options: { email?: string; verified?: boolean; name?: string } = {}): Promise<Account> {
  const email = options.email ?? `${unique("u")}@example.test`;
  const password = `pw-${unique()}`;
  const user = await auth().createUser({
    email,
    password,
    emailVerified: options.verified ?? true,
    displayName: options.name ?? "Test Person",
  });
  const idToken = await signInWithPassword(email, password);
  return { uid: user.uid, email, password, idToken };
}

export async function signInWithPassword(email: string, password: string): Promise<string> {
  const json = await identityToolkit("signInWithPassword", { email, password, returnSecureToken: true });
  return String(json.idToken);
}

export async function signInWithCustomToken(token: string): Promise<string> {
  const json = await identityToolkit("signInWithCustomToken", { token, returnSecureToken: true });
  return String(json.idToken);
}

/** A phone-only sign-in: the token proves a number and nothing else. */
export async function signedInByPhone(phone: string): Promise<{ uid: string; idToken: string }> {
  const { sessionInfo } = await identityToolkit("sendVerificationCode", { phoneNumber: phone });
  const res = await fetch(`${authHost()}/emulator/v1/projects/${project()}/verificationCodes`);
  const { verificationCodes } = (await res.json()) as {
    verificationCodes: Array<{ phoneNumber: string; code: string; sessionInfo: string }>;
  };
  const code = verificationCodes.find((c) => c.sessionInfo === sessionInfo)?.code;
  const json = await identityToolkit("signInWithPhoneNumber", { sessionInfo, code });
  return { uid: String(json.localId), idToken: String(json.idToken) };
}

export function randomPhone(): string {
  const digits = Array.from(unique("").replace(/[^0-9a-z]/g, "")).map((c) => (c.charCodeAt(0) % 10).toString());
  return `+1555${digits.join("").padEnd(7, "0").slice(0, 7)}`;
}

/**
 * A sign-in through a provider behind the identity provider (`google.com` unless named), as its
 * page would make it: the emulator takes the provider's ID token unsigned. A new provider account
 * for `email` unless `sub` names one made before.
 */
export async function signedInWithGoogle(
  email: string,
  sub: string = unique("g"),
  providerId = "google.com",
): Promise<{ uid: string; idToken: string; sub: string }> {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  // eslint-disable-next-line no-restricted-syntax -- the emulator checks the provider token's times against its own clock
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: "https://accounts.google.com",
    aud: "test",
    sub,
    email,
    email_verified: true,
    iat: now,
    exp: now + 3600,
  };
  const json = await identityToolkit("signInWithIdp", {
    postBody: `id_token=${part({ alg: "none", typ: "JWT" })}.${part(claims)}.&providerId=${providerId}`,
    requestUri: "http://localhost",
    returnSecureToken: true,
  });
  return { uid: String(json.localId), idToken: String(json.idToken), sub };
}
