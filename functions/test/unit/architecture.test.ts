/**
 * The house as docs/architecture.md draws it: imports point down the layers, never in a circle,
 * and the picture there is the one the imports make (tools/architecture.ts).
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(__dirname, "..", "..", "..");

function check(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(root, "tools", "architecture.ts"), "--check"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

describe("the architecture", () => {
  it("holds: every import points down the layers, no circle, and docs/architecture.md draws it as it is", () => {
    const run = check();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it.each([
    [
      "a store module importing core",
      "store/people.ts",
      'import "../core/errors";\n',
      /store\/people\.ts \(store\) imports core\/errors\.ts \(core\): an arrow running up/,
    ],
    [
      "core importing a route",
      "core/errors.ts",
      'import "../routes/otp/otp";\n',
      /core\/errors\.ts \(core\) imports routes\/otp\/otp\.ts \(routes\)/,
    ],
    [
      "two features in a circle",
      "core/people/access.ts",
      'import "../sessions/sessions";\n',
      /core's features in a circle/,
    ],
  ])("is refused with %s", (_, file, line, message) => {
    const copy = mkdtempSync(join(tmpdir(), "architecture-"));
    try {
      cpSync(join(root, "functions", "src"), join(copy, "src"), { recursive: true });
      cpSync(join(root, "docs", "architecture.md"), join(copy, "architecture.md"));
      appendFileSync(join(copy, "src", file), line);
      const run = check({ ARCHITECTURE_SRC: join(copy, "src"), ARCHITECTURE_DOC: join(copy, "architecture.md") });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(message);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it.each([
    [
      "the site importing a tool",
      "site/pages.ts",
      'import "../tools/stack.ts";\n',
      /site\/pages\.ts \(site\) imports tools\/stack\.ts \(tools\): an import running up the repository/,
    ],
    [
      "the functions importing the site",
      "functions/src/clock.ts",
      'import "../../site/pages";\n',
      /functions\/src\/clock\.ts \(functions\) imports site\/pages\.ts \(site\)/,
    ],
    [
      "two bench files in a circle",
      "bench/lib/keys.ts",
      'import "../http.ts";\n',
      /files in a circle: .*bench\/lib\/keys\.ts/,
    ],
  ])("is refused, repository-wide, with %s", (_, file, line, message) => {
    const copy = mkdtempSync(join(tmpdir(), "repository-"));
    try {
      for (const dir of ["site", "tools", "bench", join("functions", "src")])
        cpSync(join(root, dir), join(copy, dir), { recursive: true });
      for (const tool of ["bundle.mts", "stack-trace.mts"])
        cpSync(join(root, "functions", tool), join(copy, "functions", tool));
      cpSync(join(root, "docs", "architecture.md"), join(copy, "architecture.md"));
      appendFileSync(join(copy, file), line);
      const run = check({
        ARCHITECTURE_ROOT: copy,
        ARCHITECTURE_SRC: join(copy, "functions", "src"),
        ARCHITECTURE_DOC: join(copy, "architecture.md"),
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(message);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
