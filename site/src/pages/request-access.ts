/**
 * `/request-access`: a person with no account proves their address with a `request-access`
 * code; the service records the request for a reviewer, and the page says what happens next.
 */
import { call } from "../api";
import { emailStep, type EmailCodeJourney } from "../email-code";
import { h, linkButton, paragraph, view } from "../ui";

const here = new URL(window.location.href);
const signIn = `/${here.searchParams.has("redirect") ? `?redirect=${encodeURIComponent(here.searchParams.get("redirect") as string)}` : ""}`;

function requested(email: string): void {
  view(
    "Your request is in",
    paragraph(`Thank you: ${email} is confirmed as yours, and your request is waiting for a reviewer.`),
    h("h2", {}, "What happens next"),
    h(
      "ol",
      {},
      h("li", {}, "A reviewer decides whether to give you access. We don't email you about the decision."),
      h("li", {}, "Once your request is approved, sign in with this address: we'll email you a code."),
      h("li", {}, "If this address already has an account, you can sign in with it now."),
    ),
    linkButton("Go to sign in", signIn, "primary"),
  );
}

const journey: EmailCodeJourney = {
  purpose: "request-access",
  title: "Request access",
  intro:
    "Enter your email address. We'll email you a code to confirm it's yours, and then a reviewer decides whether to give you access.",
  after: () => [h("p", { class: "aside" }, "Already have an account? ", h("a", { href: signIn }, "Sign in"))],
  codeHint: (email) => `We've emailed a 6-digit code to ${email}. It works for 10 minutes.`,
  submitLabel: "Confirm my address",
  async useCode(email, code) {
    const answer = await call("POST", "/auth/otp/verify", { email, otp: code, purpose: "request-access" });
    if (answer.status !== 200) return answer;
    requested(email);
    return null;
  },
};

emailStep(journey, here.searchParams.get("email") ?? "");
