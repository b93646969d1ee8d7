/**
 * The emails about their account a person may choose, on `/account`: only those of sign-ins from
 * new browsers can be turned off. The others (a passkey, an address or a number changed, access
 * changed by someone else) always come, and the section says so. Turning them off asks the person
 * to confirm it's them when they signed in more than 5 minutes ago, and is itself emailed.
 */
import { ask, type Person } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { alertBox, h } from "../shared/ui";
import { askConfirmed } from "./data";

export function noticesSection(me: Person): HTMLElement {
  const alert = alertBox();
  const status = h("p", { role: "status", class: "small" });
  const box = h("input", { type: "checkbox", id: "notice-new-browser", disabled: true });
  const section = h(
    "section",
    { "aria-labelledby": "notices" },
    h("h2", { id: "notices" }, "Emails about your account"),
    alert.element,
    h(
      "div",
      { class: "select" },
      box,
      h("label", { for: "notice-new-browser" }, "Email me when someone signs in from a browser not seen before"),
    ),
    status,
    h(
      "p",
      { class: "small" },
      "We always email you when a passkey, an address, a number or a sign-in account of yours is added or removed, when these emails are turned off, and when someone else changes your access or signs you out.",
    ),
  );

  box.addEventListener("change", () => {
    const wanted = box.checked;
    box.disabled = true;
    alert.show(null);
    void askConfirmed(alert, section, me, "PATCH", "/auth/session/notices", { newBrowser: wanted }).then((answer) => {
      box.disabled = false;
      if (answer !== null && answer !== "cancelled" && answer.status === 200) {
        status.textContent = wanted
          ? "You'll be emailed about new browsers."
          : "You won't be emailed about new browsers.";
        return;
      }
      box.checked = !wanted;
      if (answer !== null && answer !== "cancelled") alert.show(TRY_AGAIN);
    });
  });

  void ask(alert, "GET", "/auth/session/notices").then((answer) => {
    if (answer === null) return;
    if (answer.status !== 200)
      return alert.show("We couldn't show your email choices just now. Please reload the page.");
    box.checked = answer.body.newBrowser === true;
    box.disabled = false;
  });
  return section;
}
