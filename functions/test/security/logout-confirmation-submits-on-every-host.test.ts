/**
 * The "Sign out?" page of RP-initiated logout works on every host that serves it, in a real
 * browser under the headers that host's Hosting site sets: the apex (the issuer in production,
 * which receives the parent domain's cookie), www, and the identity host. Pressing "Sign out"
 * submits there (the host's `form-action` lets the form post to itself), signs the person out and
 * brings them back to the app's registered address with its `state` (a redirect answering the
 * post would be held by the same `form-action`, so a page of ours goes on instead).
 *
 * @stack-project a browser reaches the stack's functions
 */
import { signInWithCustomToken } from "../support/auth";
import { ID_HOST, openSessionIn, SERVICE, useBrowserWorld } from "../support/browser";
import { auth, unique } from "../support/deps";
import { personFor } from "../support/people";
import { useRelyingParty } from "../support/relying-party";
import { sessionCookie } from "../support/visitor";

const world = useBrowserWorld();
const rp = useRelyingParty();

describe("the logout confirmation page in a browser", () => {
  it.each([
    ["the apex", SERVICE],
    ["www", "https://www.example.test"],
    ["the identity host", ID_HOST],
  ])(
    "is pressed on %s and signs the person out, back to the app",
    async (_, host) => {
      const relyingParty = await rp.client({ lifecycle: true });
      const uid = unique("uid");
      await personFor({ uid, email: `${unique("out")}@example.test` }, { name: "Leaving Person" });
      const page = await (await world().context()).newPage();
      await openSessionIn(page, await signInWithCustomToken(await auth().createCustomToken(uid)));
      expect(await sessionCookie(page)).not.toBeNull();
      const blocked: string[] = [];
      page.on("console", (m) => {
        if (/Content Security Policy/.test(m.text())) blocked.push(m.text());
      });

      const query = new URLSearchParams({
        client_id: relyingParty.clientId,
        post_logout_redirect_uri: `${rp.url()}/signed-out`,
        state: "bye",
      });
      await page.goto(`${host}/auth/oidc/logout?${query}`);
      // Asked here, on this host: no hint, so the person's yes is needed.
      expect(new URL(page.url()).origin).toBe(host);
      await page.getByRole("heading", { level: 1, name: "Sign out?" }).waitFor();
      await page.getByRole("button", { name: "Sign out" }).click();

      const back = await rp.arrivalAt("/signed-out");
      expect(back.searchParams.get("state")).toBe("bye");
      await page.getByRole("heading", { name: "Back at the app" }).waitFor();
      expect(await sessionCookie(page)).toBeNull();
      expect(blocked.filter((t) => /form-action/.test(t))).toEqual([]);
    },
    90_000,
  );
});
