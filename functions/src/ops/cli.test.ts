/** How the operator CLI reads its arguments (parse), with nothing run. */
import { parse, type Command } from "./cli";

const end: Command = {
  name: "sessions end",
  summary: "",
  usage: "sessions end <id|email> (<session> | --all) [--yes]",
  options: { all: { type: "boolean" } },
  positionals: [1, 2],
  run: async () => {},
};

describe("parse", () => {
  it("reads an id that begins with a dash as the argument it is, wherever it stands", () => {
    expect(parse(end, ["ada@example.test", "-sDidTiY07PTJ0XNhREK0Q", "--yes"])).toMatchObject({
      positionals: ["ada@example.test", "-sDidTiY07PTJ0XNhREK0Q"],
      values: { yes: true },
    });
    expect(parse(end, ["-yAbc", "-y"]).positionals).toEqual(["-yAbc"]);
    expect(parse(end, ["-yAbc", "-y"]).values.yes).toBe(true);
    expect(parse(end, ["x", "--project", "-demo"]).values.project).toBe("-demo");
  });

  it("still refuses an option it does not know", () => {
    expect(() => parse(end, ["ada@example.test", "--bogus"])).toThrow(/sessions end: Unknown option '--bogus'/);
  });
});
