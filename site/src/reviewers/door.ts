/**
 * What the reviewer pages share: the door (an administrator's session; anyone else is told, and
 * a signed-out visitor is sent to sign in and back), and one way of asking the people endpoints
 * that turns an answer no page can use (no service, an ended sign-in, a role taken away) into
 * words in the place that asked.
 */
import { ask, currentSession, type Answer, type FileBody, type Notice, type Person } from "../shared/api";
import { alertBox, button, h, linkButton, paragraph, view } from "../shared/ui";

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
  await page(session.person);
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
