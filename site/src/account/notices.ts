/**
 * The emails about their account a person may choose, on `/account`: only those of sign-ins from
 * new browsers can be turned off. The others (a passkey, an address or a number changed, access
 * changed by someone else) always come, and the section says so.
 */
import { ask } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { alertBox, h } from "../shared/ui";

export function noticesSection(): HTMLElement {
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
      "We always email you when a passkey, an address or a number of yours is added or removed, and when someone else changes your access or signs you out.",
    ),
  );

  const choice = (method: "GET" | "PATCH", body?: Record<string, unknown>) =>
    ask(alert, method, "/auth/session/notices", body);

  box.addEventListener("change", () => {
    const wanted = box.checked;
    box.disabled = true;
    alert.show(null);
    void choice("PATCH", { newBrowser: wanted }).then((answer) => {
      box.disabled = false;
      if (answer?.status === 200) {
        status.textContent = wanted
          ? "You'll be emailed about new browsers."
          : "You won't be emailed about new browsers.";
        return;
      }
      box.checked = !wanted;
      if (answer !== null) alert.show(TRY_AGAIN);
    });
  });

  void choice("GET").then((answer) => {
    if (answer === null) return;
    if (answer.status !== 200)
      return alert.show("We couldn't show your email choices just now. Please reload the page.");
    box.checked = answer.body.newBrowser === true;
    box.disabled = false;
  });
  return section;
}
