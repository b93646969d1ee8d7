/**
 * The person's recovery codes on `/account`: how many are left, and making a new set, which the
 * service allows right after a sign-in with a passkey (otherwise the page asks for one, in place).
 * The codes are shown this once; making new ones ends the old.
 */
import { ask } from "../shared/api";
import { TRY_AGAIN } from "../shared/messages";
import { alertBox, button, h, paragraph, whileBusy } from "../shared/ui";
import { passkeyAsked, usePasskeyInPlace } from "../sign-in/passkey-in-place";

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export function recoveryCodesSection(): HTMLElement {
  const heading = h("h2", { id: "recovery-codes", tabindex: "-1" }, "Recovery codes");
  const alert = alertBox();
  const state = h("p", { class: "small" });
  const shown = h("div", {});
  const place = h("div", {});
  const make = button("Make new recovery codes", { kind: "secondary" });
  const section = h(
    "section",
    { "aria-labelledby": "recovery-codes" },
    heading,
    paragraph(
      "If you lose your passkeys, one of these codes signs you in once, so you can add a new passkey. Keep them somewhere safe, apart from your devices.",
    ),
    alert.element,
    state,
    shown,
    place,
    make,
  );

  async function refresh(): Promise<void> {
    const answer = await ask(alert, "GET", "/auth/passkeys/recovery-codes");
    if (answer?.status !== 200) return;
    const left = answer.body.left as number;
    const madeAt = answer.body.madeAt as string | null;
    state.textContent =
      madeAt === null
        ? "You have no recovery codes."
        : `${left === 0 ? "None" : left} of your codes ${left === 1 ? "is" : "are"} left unused (made ${DAY.format(new Date(madeAt))}).`;
  }

  make.addEventListener("click", () => {
    alert.show(null);
    shown.replaceChildren();
    void whileBusy(make, "Making codes…", async () => {
      let answer = await ask(alert, "POST", "/auth/passkeys/recovery-codes", {});
      if (answer !== null && passkeyAsked(answer)) {
        const confirmed = await usePasskeyInPlace(
          (panel) => place.replaceChildren(panel),
          "New recovery codes are made right after a sign-in with your passkey.",
        );
        if (!confirmed) return;
        answer = await ask(alert, "POST", "/auth/passkeys/recovery-codes", {});
      }
      if (answer === null) return;
      if (answer.status !== 201) return alert.show(TRY_AGAIN);
      const codes = answer.body.codes as string[];
      shown.replaceChildren(
        h(
          "p",
          { role: "status" },
          "Your new recovery codes. Save them now: they won't be shown again, and any you had before work no more.",
        ),
        h("ol", { class: "codes" }, ...codes.map((c) => h("li", {}, h("code", {}, c)))),
      );
      await refresh();
    });
  });

  void refresh();
  return section;
}
