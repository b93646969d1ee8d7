/**
 * `/account`: who is signed in in this browser, their standing and projects, their addresses, passkeys,
 * recovery codes and sessions, the apps they let in, which emails about their account they get, and signing out.
 * The bridges' default `redirect` lands here.
 */
import { call, currentSession, type Person } from "../shared/api";
import { button, h, linkButton, paragraph, view, whileBusy } from "../shared/ui";
import { UNREACHABLE } from "../shared/messages";
import { passkeysSection } from "../account/passkeys";
import { recoveryCodesSection } from "../account/recovery-codes";
import { sessionsSection } from "../account/sessions";
import { appsSection } from "../account/apps";
import { dataSection, deleteSection, nameSection } from "../account/data";
import { noticesSection } from "../account/notices";
import { addressesSection } from "../account/addresses";
import { accountsSection } from "../account/accounts";

const SIGN_IN = `/?redirect=${encodeURIComponent(`${window.location.origin}/account`)}`;

function row(term: string, ...detail: Array<Node | string>): Node[] {
  return [h("dt", {}, term), h("dd", {}, ...detail)];
}

function projects(person: Person): Node | string {
  if (person.projects.includes("*")) return "Every project";
  if (person.projects.length === 0) return person.role === "admin" ? "Every project (administrator)" : "None yet";
  return h("ul", { class: "plain" }, ...person.projects.map((p) => h("li", {}, p)));
}

function signedIn(person: Person): void {
  const signOut = button("Sign out");
  signOut.addEventListener("click", () => {
    void whileBusy(signOut, "Signing out…", async () => {
      try {
        // The service ends the session itself; until it says so, the person is not signed out.
        if ((await call("POST", "/auth/logout")).status === 200) signedOut();
        else status.textContent = "We couldn't sign you out just now. Please try again in a moment.";
      } catch {
        status.textContent = UNREACHABLE;
      }
    });
  });
  const status = h("p", { role: "status" });
  const shownName = h("dd", {}, person.name === "" ? "Not given" : person.name);
  const renamed = (p: Person) => void (shownName.textContent = p.name === "" ? "Not given" : p.name);
  const shownEmail = h("dd", {}, person.email ?? "None");
  const readdressed = (emails: string[]) => void (shownEmail.textContent = emails[0] ?? "None");
  view(
    "Your account",
    h(
      "dl",
      { class: "details" },
      h("dt", {}, "Name"),
      shownName,
      h("dt", {}, "Email"),
      shownEmail,
      ...row("Status", "Approved"),
      ...row("Role", person.role === "admin" ? "Administrator" : "Member"),
      ...row("Projects", projects(person)),
    ),
    person.role === "admin" && h("p", { class: "aside" }, h("a", { href: "/review" }, "Review requests")),
    nameSection(person, renamed),
    addressesSection(person, readdressed, signedOutBecause),
    accountsSection(person, signedOutBecause),
    passkeysSection(),
    recoveryCodesSection(),
    sessionsSection(),
    appsSection(),
    noticesSection(person),
    h("h2", {}, "Sign out"),
    signOut,
    status,
    h(
      "p",
      { class: "small" },
      "Signing out here signs you out of every site of this service in this browser. To sign out other browsers and devices, use Where you're signed in, above.",
    ),
    dataSection(person),
    deleteSection(person, accountDeleted),
  );
}

function accountDeleted(finishing: string): void {
  view(
    "Your account is deleted",
    paragraph(
      finishing === ""
        ? "We've deleted your account and everything we kept about you, and signed you out everywhere."
        : "We've deleted your account and what we kept about you, and signed you out everywhere.",
    ),
    finishing !== "" && paragraph(finishing),
    paragraph("If you want to come back, you can ask for access again."),
    linkButton("Ask for access", "/request-access", "secondary"),
  );
}

/** A change made on this page took this browser's sign-in with it: said, with the way back. */
function signedOutBecause(why: string): void {
  view("You're signed out here", paragraph(why), linkButton("Sign in again", SIGN_IN, "primary"));
}

function signedOut(): void {
  view(
    "You're signed out",
    paragraph("You're signed out of every site of this service in this browser."),
    linkButton("Sign in again", SIGN_IN, "primary"),
  );
}

async function main(): Promise<void> {
  const session = await currentSession();
  if (session.kind === "signed-in") return signedIn(session.person);
  if (session.kind === "signed-out")
    return view(
      "You're not signed in",
      paragraph("Sign in to see your account."),
      linkButton("Sign in", SIGN_IN, "primary"),
    );
  const again = button("Try again", { onclick: () => void main() });
  view(
    "We can't show your account right now",
    paragraph("We couldn't check who is signed in. Please try again in a moment."),
    again,
  );
}

void main();
