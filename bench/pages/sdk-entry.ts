/**
 * The alternative to the pages' own exchange (site/src/identity-provider.ts): the identity
 * provider's client SDK doing the same one thing, bundled as a page would bundle it.
 * `minimal` keeps nothing in the browser (in-memory persistence); `default` is what getAuth()
 * gives a developer who reaches for the SDK as documented.
 */
import { initializeApp } from "@firebase/app";
import { getAuth, initializeAuth, inMemoryPersistence, signInWithCustomToken } from "@firebase/auth";

const app = initializeApp({ apiKey: "key", projectId: "project" });
const auth =
  process.env.SDK_VARIANT === "minimal" ? initializeAuth(app, { persistence: inMemoryPersistence }) : getAuth(app);

export async function idTokenFor(customToken: string): Promise<string> {
  return (await signInWithCustomToken(auth, customToken)).user.getIdToken();
}
