/**
 * `/handoff?app=&redirect_uri=&state=&code_challenge=&code_challenge_method=S256`: hands the
 * signed-in person to an app that cannot read the parent domain's cookie (a native app, a site on
 * another domain). The service names the app; the person says yes; the service issues a
 * single-use exchange code for the app's registered redirect URI, which the app redeems at
 * POST /auth/exchange with its PKCE verifier.
 */
import { call, currentSession, Unreachable, type Person } from "../shared/api";
import { TRY_AGAIN, UNREACHABLE } from "../shared/messages";
import { button, h, linkButton, paragraph, view, whileBusy, working } from "../shared/ui";

const here = new URL(window.location.href);
const q = here.searchParams;

function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}

function leaving(appName: string): void {
  view(
    `Opening ${appName}`,
    paragraph(
      `We've passed you on to ${appName}. If nothing happens, go back to ${appName} and try again. You can close this tab.`,
    ),
  );
}

function confirm(app: { name: string }, redirectUri: string, person: Person): void {
  const status = h("p", { role: "alert", class: "alert", hidden: true });
  const go = button(`Continue to ${app.name}`);
  go.addEventListener("click", () => {
    void whileBusy(go, "Continuing…", async () => {
      try {
        const answer = await call("POST", "/auth/handoff", {
          app: q.get("app"),
          redirect_uri: redirectUri,
          ...(q.has("state") ? { state: q.get("state") } : {}),
          ...(q.has("code_challenge") ? { code_challenge: q.get("code_challenge") } : {}),
          ...(q.has("code_challenge_method") ? { code_challenge_method: q.get("code_challenge_method") } : {}),
        });
        if (answer.status === 200 && typeof answer.body.location === "string") {
          leaving(app.name);
          window.location.assign(answer.body.location);
          return;
        }
        status.hidden = false;
        status.textContent =
          answer.status === 400
            ? `${app.name} asked in a way we can't answer. Go back to ${app.name} and try again.`
            : answer.status === 401
              ? "You're no longer signed in. Reload this page to sign in again."
              : TRY_AGAIN;
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        status.hidden = false;
        status.textContent = UNREACHABLE;
      }
    });
  });
  const cancel = button("Cancel", {
    kind: "secondary",
    onclick: () => {
      leaving(app.name);
      window.location.assign(withParams(redirectUri, { error: "access_denied", state: q.get("state") }));
    },
  });
  const who = person.email ?? person.name;
  view(
    `Continue to ${app.name}?`,
    paragraph(
      `${app.name} is asking to know who you are. If you continue, it learns your name, email address, role and projects.`,
    ),
    paragraph(`You're signed in as ${who}.`),
    status,
    h("div", { class: "actions" }, go, cancel),
  );
}

async function main(): Promise<void> {
  working("Checking the request", "One moment…");
  let described;
  try {
    described = await call(
      "GET",
      `/auth/handoff?${new URLSearchParams({ app: q.get("app") ?? "", redirect_uri: q.get("redirect_uri") ?? "" })}`,
    );
  } catch {
    return view("We can't continue", paragraph(UNREACHABLE));
  }
  // Unknown app, or an address it did not register: nothing is sent anywhere.
  if (described.status !== 200)
    return view(
      "This link can't be used",
      paragraph(
        "The app that sent you here asked in a way this service doesn't recognise. Go back to the app and try again.",
      ),
    );
  const app = described.body.app as { name: string };
  const redirectUri = described.body.redirectUri as string;
  const session = await currentSession();
  if (session.kind === "signed-in") return confirm(app, redirectUri, session.person);
  if (session.kind === "unavailable") return view("We can't continue", paragraph(TRY_AGAIN));
  const back = `/?redirect=${encodeURIComponent(here.toString())}`;
  view(
    `Sign in to continue to ${app.name}`,
    paragraph(`${app.name} wants you to sign in. After you sign in, we'll ask before passing you on.`),
    linkButton("Sign in", back, "primary"),
  );
}

void main();
