import { describe as describePasskey, suggestedName } from "../account/passkeys";
import { giveUp, passkeyRefusal } from "./passkeys";
import { ceremonyEnd } from "./webauthn";

describe("giveUp: where Back to the app leads from the passkey-only page", () => {
  it("asks an OpenID Connect request again with prompt=none, so the client hears login_required", () => {
    const back = new URL(giveUp("https://id.example.test/auth/oidc/authorize?client_id=c&acr_values=phr&state=s"));
    expect(back.pathname).toBe("/auth/oidc/authorize");
    expect(Object.fromEntries(back.searchParams)).toEqual({
      client_id: "c",
      acr_values: "phr",
      state: "s",
      prompt: "none",
    });
  });

  it("leaves any other address as it is", () => {
    expect(giveUp("https://startpage.example.test/")).toBe("https://startpage.example.test/");
  });
});

describe("passkeyRefusal", () => {
  it("tells a challenge too old from a passkey refused, and both from a failure on our side", () => {
    expect(passkeyRefusal({ status: 400 })).toMatch(/took too long/);
    expect(passkeyRefusal({ status: 401 })).toMatch(/wasn't accepted/);
    expect(passkeyRefusal({ status: 503 })).toMatch(/went wrong on our side/);
  });
});

describe("ceremonyEnd: why the browser's prompt ended without a passkey", () => {
  it.each([
    [{ name: "NotAllowedError", code: "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY" }, "cancelled"],
    [{ name: "AbortError", code: "ERROR_CEREMONY_ABORTED" }, "superseded"],
    [{ name: "InvalidStateError", code: "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" }, "duplicate"],
    [{ name: "SecurityError" }, "failed"],
    [new TypeError("x"), "failed"],
    [null, "failed"],
  ])("reads %j as %s", (err, end) => {
    expect(ceremonyEnd(err)).toBe(end);
  });
});

describe("the account page's words for a passkey", () => {
  const format = (iso: string) => iso.slice(0, 10);
  const passkey = {
    id: "k",
    name: "Phone",
    createdAt: "2026-12-01T10:00:00.000Z",
    lastUsedAt: null,
    synced: false,
    suspect: false,
  };

  it("says when it was added and last used, whether it is synced, and when it is blocked", () => {
    expect(describePasskey(passkey, format)).toBe("Added 2026-12-01 · not used yet");
    expect(describePasskey({ ...passkey, lastUsedAt: "2026-12-03T09:00:00.000Z", synced: true }, format)).toBe(
      "Added 2026-12-01 · last used 2026-12-03 · synced across your devices",
    );
    expect(describePasskey({ ...passkey, suspect: true }, format)).toMatch(/blocked: it was copied/);
  });

  it.each([
    ["macOS", "Passkey on macOS"],
    ["MacIntel", "Passkey on macOS"],
    ["Win32", "Passkey on Windows"],
    ["Linux x86_64", "Passkey on Linux"],
    ["Android", "Passkey on Android"],
    ["", "Passkey"],
    ["PlayStation", "Passkey"],
  ])("names a new passkey made on %j %j", (platform, name) => {
    expect(suggestedName(platform)).toBe(name);
  });
});
