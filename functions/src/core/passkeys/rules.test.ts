import fc from "fast-check";
import type { PasskeyChallenge } from "../model/passkey";
import {
  addressBehind,
  CHALLENGE_LIFETIME_MS,
  challengeOf,
  challengeUsable,
  counterVerdict,
  passkeyMethods,
} from "./rules";

const clientData = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("challengeOf: the challenge a response says it answers", () => {
  it("reads the challenge from clientDataJSON", () => {
    expect(challengeOf(clientData({ type: "webauthn.get", challenge: "abc-_1", origin: "https://x" }))).toBe("abc-_1");
  });

  it.each([
    ["not base64url JSON", "%%%"],
    ["JSON that is not an object", clientData("challenge")],
    ["no challenge", clientData({ type: "webauthn.get" })],
    ["a challenge that is not a string", clientData({ challenge: 7 })],
    ["an empty challenge", clientData({ challenge: "" })],
    ["a challenge too long to be one of ours", clientData({ challenge: "a".repeat(129) })],
    ["null", clientData(null)],
  ])("is null for %s", (_what, value) => {
    expect(challengeOf(value)).toBeNull();
  });

  it("never throws, whatever it is given", () => {
    fc.assert(fc.property(fc.string(), (raw) => void challengeOf(raw)));
  });
});

describe("challengeUsable", () => {
  const created = new Date("2026-12-01T10:00:00Z");
  const challenge = (fields: Partial<PasskeyChallenge> = {}): PasskeyChallenge => ({
    hash: "h",
    purpose: "sign-in",
    personId: null,
    sessionKey: null,
    binding: "b",
    createdAt: created,
    expiresAt: new Date(created.getTime() + CHALLENGE_LIFETIME_MS),
    usedAt: null,
    ...fields,
  });
  const at = (ms: number) => new Date(created.getTime() + ms);

  it("takes a fresh challenge of its purpose up to the last millisecond of its five minutes", () => {
    expect(challengeUsable(challenge(), "sign-in", at(0))).toBe(true);
    expect(challengeUsable(challenge(), "sign-in", at(CHALLENGE_LIFETIME_MS - 1))).toBe(true);
  });

  it("refuses one five minutes old, used, of the other purpose, or unknown", () => {
    expect(challengeUsable(challenge(), "sign-in", at(CHALLENGE_LIFETIME_MS))).toBe(false);
    expect(challengeUsable(challenge({ usedAt: at(1) }), "sign-in", at(2))).toBe(false);
    expect(challengeUsable(challenge(), "register", at(0))).toBe(false);
    expect(challengeUsable(null, "sign-in", at(0))).toBe(false);
  });
});

describe("counterVerdict: a signature counter that goes backwards is a cloned key", () => {
  it("accepts 0 after 0: an authenticator that keeps no counter", () => {
    expect(counterVerdict(0, 0)).toBe("advance");
  });

  it("accepts any count above the stored one", () => {
    expect(counterVerdict(0, 1)).toBe("advance");
    expect(counterVerdict(41, 42)).toBe("advance");
    expect(counterVerdict(41, 1000)).toBe("advance");
  });

  it("refuses a count that stands still or goes back once counting has begun", () => {
    expect(counterVerdict(42, 42)).toBe("regressed");
    expect(counterVerdict(42, 41)).toBe("regressed");
    expect(counterVerdict(42, 0)).toBe("regressed");
  });

  it("advances exactly when the new count is higher, or both are 0", () => {
    const count = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    fc.assert(
      fc.property(count, count, (stored, presented) => {
        const advances = presented > stored || (stored === 0 && presented === 0);
        expect(counterVerdict(stored, presented)).toBe(advances ? "advance" : "regressed");
      }),
    );
  });
});

describe("passkeyMethods: a passkey sign-in in RFC 8176's words", () => {
  it("names a device-bound key hwk and a synced one swk, each with the verified user", () => {
    expect(passkeyMethods(false)).toEqual(["hwk", "user"]);
    expect(passkeyMethods(true)).toEqual(["swk", "user"]);
  });
});

describe("addressBehind: the address what a session adds goes with", () => {
  const made = new Date("2026-12-01T10:00:00Z");
  const way = { address: null, passkeyId: null, codesMadeAt: null };
  const keys = [
    { id: "work-key", address: "work@example.test" },
    { id: "home-key", address: null },
  ];
  const codes = { madeAt: made, address: "work@example.test" };

  it("is the address of the code that opened the session", () => {
    expect(addressBehind({ ...way, address: "work@example.test" }, [], null)).toBe("work@example.test");
  });

  it("is the address a passkey or a set of codes came through, for a session they opened", () => {
    expect(addressBehind({ ...way, passkeyId: "work-key" }, keys, null)).toBe("work@example.test");
    expect(addressBehind({ ...way, codesMadeAt: new Date(made.getTime()) }, keys, codes)).toBe("work@example.test");
  });

  it("is null for any other way in, a passkey or set no longer held, and a session with no record", () => {
    expect(addressBehind(way, keys, codes)).toBeNull();
    expect(addressBehind({ ...way, passkeyId: "home-key" }, keys, codes)).toBeNull();
    expect(addressBehind({ ...way, passkeyId: "gone" }, keys, codes)).toBeNull();
    expect(addressBehind({ ...way, codesMadeAt: new Date(made.getTime() - 1) }, keys, codes)).toBeNull();
    expect(addressBehind(null, keys, codes)).toBeNull();
  });
});
