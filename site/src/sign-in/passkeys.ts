/**
 * Signing in with a passkey on `/`: a "Sign in with a passkey" button, and the person's passkeys
 * offered in the email field's autofill (conditional mediation, `autocomplete="username
 * webauthn"`). Either ends as an email code does: a custom token, then the landing (finishSignIn)
 * with its approval rules and redirect. And the page an OpenID Connect client's `acr_values=phr`
 * leads to (`?require=passkey`): a passkey sign-in, and nothing else.
 */
import type { EmailCodeJourney } from "./email-code";
import { finishSignIn, type Destination } from "./finish";
import { alertBox, button, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";
import { autofillSupported, passkeysSupported } from "./webauthn";
import { passkeyToken, type RefusalWords } from "./passkey-token";

export { passkeyRefusal, passkeyToken, type RefusalWords } from "./passkey-token";

/** A passkey sign-in, and on success the landing (finishSignIn) with its approval rules and redirect. */
async function signIn(to: Destination, autofill: boolean): Promise<RefusalWords> {
  const signedIn = await passkeyToken(autofill);
  if ("refusal" in signedIn) return signedIn.refusal;
  await finishSignIn(signedIn.customToken, to);
  return null;
}

/** The button and the alert that tells the person what became of a passkey sign-in. */
function passkeyButton(to: Destination, kind: "primary" | "secondary") {
  const alert = alertBox();
  const go = button("Sign in with a passkey", { kind });
  go.addEventListener("click", () => {
    alert.show(null);
    void whileBusy(go, "Waiting for your passkey…", async () => alert.show(await signIn(to, false)));
  });
  return { alert, element: h("div", { class: "passkey" }, alert.element, go) };
}

/**
 * The sign-in journey with passkeys beside the email code: the button under the form, and the
 * email field offering passkeys in its autofill each time it is on the page. A browser without
 * WebAuthn gets the journey as it was.
 */
export function withPasskeys(journey: EmailCodeJourney, to: Destination): EmailCodeJourney {
  if (!passkeysSupported()) return journey;
  let shownAlert: ReturnType<typeof alertBox> | null = null;
  return {
    ...journey,
    autocomplete: "username webauthn",
    after() {
      const offer = passkeyButton(to, "secondary");
      shownAlert = offer.alert;
      return [offer.element, ...(journey.after?.() ?? [])];
    },
    shown() {
      journey.shown?.();
      const alert = shownAlert;
      void (async () => {
        if (!(await autofillSupported())) return;
        const refusal = await signIn(to, true);
        if (refusal !== null) alert?.show(refusal);
      })();
    },
  };
}

/**
 * Where "Back to the app" leads from the passkey-only page: the OpenID Connect request again with
 * `prompt=none`, which tells the client `login_required` without showing anything; any other
 * address as it is.
 */
export function giveUp(redirect: string): string {
  const url = new URL(redirect);
  if (url.pathname !== "/auth/oidc/authorize") return redirect;
  url.searchParams.set("prompt", "none");
  return url.toString();
}

/** `?require=passkey`: the app asked for a phishing-resistant sign-in, which only a passkey gives. */
export function passkeyOnly(to: Destination): void {
  const back = linkButton("Back to the app", giveUp(to.redirect));
  const account = h("a", { href: "/account" }, "your account page");
  const noPasskey = h(
    "p",
    { class: "aside" },
    "No passkey yet? Sign in with your email address on ",
    account,
    ", add a passkey there, then go back to the app and try again.",
  );
  if (!passkeysSupported())
    return view(
      "This browser can't use passkeys",
      paragraph("The app you came from asks you to sign in with a passkey, and this browser can't use one."),
      paragraph("Try a browser that supports passkeys, or go back to the app."),
      back,
    );
  view(
    "Sign in with a passkey",
    paragraph(
      "The app you came from asks you to sign in with a passkey, which can't be used on a look-alike site. A code from an email isn't enough here.",
    ),
    passkeyButton(to, "primary").element,
    h("div", { class: "actions" }, back),
    noPasskey,
  );
}
