/**
 * What the reviewer pages share: the door (an administrator's session, begun with a passkey where
 * the passkey rule holds them; anyone else is told, an administrator signed in another way is
 * asked for their passkey there and then, and a signed-out visitor is sent to sign in and back),
 * and one way of asking the people endpoints that turns an answer no page can use (no service, an
 * ended sign-in, a role taken away) into words in the place that asked; a passkey asked for
 * (`passkey_required`) is asked for in place by what asked (sign-in/step-up `withStepUp`).
 */
import { ask, call, currentSession, type Answer, type FileBody, type Notice, type Person } from "../shared/api";
import { alertBox, button, h, linkButton, paragraph, view } from "../shared/ui";
import { usePasskeyInPlace } from "../sign-in/passkey-in-place";
import type { RuleView } from "../../../functions/src/core/passkeys/passkey-view";

/** The sign-in page, coming back here afterwards. */
export function signInHere(): string {
  return `/?redirect=${encodeURIComponent(window.location.href)}`;
}

/** Runs the page for an administrator; tells anyone else why not, and sends a signed-out visitor to sign in. */
export async function forAdministrators(page: (me: Person) => void | Promise<void>): Promise<void> {
  const session = await currentSession();
  if (session.kind === "signed-out") {
    // replace(): Back from the sign-in page should not land on a page that sends them there again.
    window.location.replace(signInHere());
    return;
  }
  if (session.kind === "unavailable")
    return view(
      "We can't show this page right now",
      paragraph("We couldn't check who is signed in. Please try again in a moment."),
      button("Try again", { onclick: () => void forAdministrators(page) }),
    );
  document.body.classList.add("admin");
  if (session.person.role !== "admin")
    return view(
      "You need to be an administrator",
      paragraph("This page is for the administrators who decide who gets access, and you're not one of them."),
      paragraph(`You're signed in as ${session.person.email ?? session.person.name}.`),
      linkButton("Go to your account", "/account", "primary"),
    );
  if (!(await actsAsAdministrator())) return passkeyDoor(page, session.person);
  await page(session.person);
}

/** Whether this session may act as an administrator under the passkey rule (yes when it cannot tell: the pages' own asks say). */
async function actsAsAdministrator(): Promise<boolean> {
  const mine = await call("GET", "/auth/passkeys").catch(() => null);
  const rule = mine?.status === 200 ? (mine.body.rule as RuleView | undefined) : undefined;
  return rule === undefined || !rule.holds || rule.acts;
}

/** An administrator signed in another way: their passkey first, asked for here, then the page. */
function passkeyDoor(page: (me: Person) => void | Promise<void>, me: Person): void {
  const place = h("div", {});
  view(
    "Use your passkey to go on",
    paragraph(
      `You're signed in as ${me.email ?? me.name}. Until you use your passkey, you can use your own account only.`,
    ),
    place,
    linkButton("Go to your account", "/account"),
  );
  void usePasskeyInPlace((panel) => place.replaceChildren(panel)).then((confirmed) =>
    confirmed ? forAdministrators(page) : undefined,
  );
}

/**
 * Asks a people endpoint. The answer, for the page to read; or null once `notice` says why there
 * is nothing to read: the service unreachable, the sign-in ended, or no longer an administrator.
 */
export async function askAdmin(
  notice: Notice,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: Record<string, unknown> | FileBody,
): Promise<Answer | null> {
  const answer = await ask(notice, method, path, body);
  if (answer === null) return null;
  if (answer.status === 401) {
    notice.show(
      "Your sign-in has ended. Sign in again to go on.",
      linkButton("Sign in again", signInHere(), "primary"),
    );
    return null;
  }
  if (answer.status === 403 && answer.body.reason === undefined) {
    notice.show("You're no longer an administrator, so this can't be done.");
    return null;
  }
  if (answer.status >= 500) {
    notice.show("Something went wrong on our side. Please try again in a moment.");
    return null;
  }
  return answer;
}

/** The address of a person's page. */
export function personPage(personId: string): string {
  return `/person?id=${encodeURIComponent(personId)}`;
}

/** A part of a page with its own heading, alert and status: where what is done in it is said. */
export interface Section {
  element: HTMLElement;
  heading: HTMLHeadingElement;
  alert: ReturnType<typeof alertBox>;
  /** What the section shows, redrawn after a change. */
  body: HTMLElement;
  /** Says what was done (announced), with focus on the heading: what was pressed may be redrawn away. */
  said(words: string): void;
}

export function section(id: string, title: string, ...intro: Node[]): Section {
  const heading = h("h2", { id, tabindex: "-1" }, title);
  const alert = alertBox();
  const status = h("p", { role: "status", class: "small said" });
  const body = h("div", {});
  return {
    element: h("section", { "aria-labelledby": id }, heading, ...intro, alert.element, status, body),
    heading,
    alert,
    body,
    said(words) {
      status.textContent = words;
      heading.focus();
    },
  };
}
