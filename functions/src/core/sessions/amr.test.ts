import { methodsOf } from "./amr";

describe("methodsOf: how an ID token says the person signed in", () => {
  it("takes the service's own claim, keeping only RFC 8176 values it knows, once each", () => {
    expect(methodsOf(["otp"], "custom")).toEqual(["otp"]);
    expect(methodsOf(["hwk", "user", "hwk"], "custom")).toEqual(["hwk", "user"]);
    expect(methodsOf(["otp", "made-up", 7], "custom")).toEqual(["otp"]);
  });

  it.each([
    ["password", ["pwd"]],
    ["phone", ["sms"]],
    ["google.com", ["fed"]],
    ["oidc.local", ["fed"]],
    ["custom", []],
    ["anonymous", []],
  ])("reads a sign-in at the provider by %s as %j", (provider, amr) => {
    expect(methodsOf(undefined, provider)).toEqual(amr);
  });
});
