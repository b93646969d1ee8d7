/**
 * ESLint over the rest of the repository: the identity host's pages (site/), the tools (tools/)
 * and the benches (bench/). Run from the repository's root with `-c` (npm run lint), so its
 * patterns are the root's; the functions keep their own stricter config (eslint.config.mjs).
 * The pages, tools and benches read real time and randomness (a stopwatch, a port, a page's
 * clock), so the functions' clock rule is not theirs.
 */
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "functions/**", "hosting/**", ".stack/**", "emulator-data/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // The benches load the functions' built modules by name (bench/lib/functions.ts `service`),
    // untyped on purpose so their type check stays out of the functions' sources.
    files: ["bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
