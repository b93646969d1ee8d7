/**
 * A body the platform cannot parse never reaches our code: its body parser answers first. Through
 * the Hosting emulator, as on the platform, that answer is a plain 400 without a stack trace.
 *
 * @stack-project requests go through Hosting to the stack's functions
 */
const base = process.env.STACK_BASE_URL as string;

describe("a malformed JSON body, through Hosting", () => {
  it.each(["/auth/verify", "/auth/otp/send", "/auth/session/refresh"])(
    "is refused at %s with a plain 400: no stack trace, no file paths",
    async (path) => {
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{bad",
      });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).not.toMatch(/SyntaxError|at \w|node_modules|\/work\/|\.js:\d+/);
      expect(text).toMatch(/Bad Request/);
    },
  );
});
