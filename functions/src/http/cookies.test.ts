import type { Request } from "express";
import { readSessionCookie } from "./cookies";

const withCookie = (cookie: string): Request => ({ headers: { cookie } }) as unknown as Request;

describe("readSessionCookie", () => {
  it("reads the session's value as written, and unescapes one that has escapes", () => {
    expect(readSessionCookie(withCookie("a=1; __session=eyJ.abc-_.sig")).value).toBe("eyJ.abc-_.sig");
    expect(readSessionCookie(withCookie("__session=a%2Bb")).value).toBe("a+b");
  });

  it("ignores a value that is not one we wrote, and other cookies' names", () => {
    expect(readSessionCookie(withCookie("__session=%E0%A4%A")).value).toBeNull();
    expect(readSessionCookie(withCookie("x__session=1; __session_=2")).value).toBeNull();
  });

  it("counts several sessions as several, whatever their order, and leaves the bridge's state out", () => {
    const two = readSessionCookie(withCookie("__session=a; __session=b"));
    expect(two).toMatchObject({ value: null, several: true, all: ["a", "b"] });
    expect(readSessionCookie(withCookie("__session=bridge.s1; __session=a"))).toMatchObject({
      value: "a",
      several: false,
    });
  });
});
