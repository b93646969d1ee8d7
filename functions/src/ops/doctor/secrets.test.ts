import { secretAnswer } from "./secrets";

describe("what Secret Manager's answer means", () => {
  it("decodes a value it was given", () => {
    const data = Buffer.from("p1:secret").toString("base64");
    expect(secretAnswer("CODE_PEPPER", "proj", 200, { payload: { data } })).toEqual({ value: "p1:secret" });
  });

  it.each([
    [404, /not set \(npx firebase functions:secrets:set CODE_PEPPER --project proj\)/],
    [403, /may not read it \(they need roles\/secretmanager\.secretAccessor on proj\): denied/],
    [500, /answered 500: denied/],
  ])("names the reason for %i, and what to do", (status, reason) => {
    const answer = secretAnswer("CODE_PEPPER", "proj", status, { error: { message: "denied\nmore" } });
    expect(answer).toEqual({ reason: expect.stringMatching(reason) });
  });
});
