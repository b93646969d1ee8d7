/**
 * Three projects, in two tiers.
 * - `unit`: the pure tests beside their modules (src/**\/*.test.ts, test/support/*.test.ts) and the
 *   whole tree's (test/unit/), with no emulator and no stack.
 * - `site`: the identity host's pages' pure rules, beside their modules (../site/src/**\/*.test.ts).
 * - `behaviour`: through HTTP, the CLI and a browser against the stack that `npm test` starts
 *   (test/). Each file owns a Firestore project of its own unless its header says it drives the
 *   stack's functions (test/support/environment.cjs), so files run side by side.
 * `npm run test:unit` runs the first two alone.
 * TypeScript is loaded by esbuild (test/support/transform.cjs): the type check runs once, before.
 */
const transform = { "^.+\\.ts$": require.resolve("./test/support/transform.cjs") };

const unit = {
  displayName: "unit",
  testEnvironment: "node",
  // With the test support's own pure tests (its task queue's stand-in, held to Cloud Tasks), and
  // the checks of the whole tree that need no stack (test/unit: the architecture, the docs' paths).
  roots: ["<rootDir>/src", "<rootDir>/test/support", "<rootDir>/test/unit"],
  testMatch: ["**/*.test.ts"],
  transform,
};

const behaviour = {
  displayName: "behaviour",
  testEnvironment: "<rootDir>/test/support/environment.cjs",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/test/support/", "/test/unit/"],
  transform,
  setupFiles: ["<rootDir>/test/support/env.ts"],
  setupFilesAfterEnv: [
    "<rootDir>/test/support/settle.ts",
    "<rootDir>/test/support/own-project.ts",
    "<rootDir>/test/support/query-shapes.ts",
  ],
};

const site = {
  displayName: "site",
  testEnvironment: "node",
  rootDir: "<rootDir>/../site",
  roots: ["<rootDir>/src"],
  testMatch: ["**/*.test.ts"],
  transform,
  // The deployment's /site-config.js, as the tests assume it; the toolchain lives with the functions.
  moduleNameMapper: { "^site:config$": "<rootDir>/src/testing/site-config.ts" },
  modulePaths: ["<rootDir>/../functions/node_modules"],
};

module.exports = {
  projects: [unit, site, behaviour],
  // Every query the behaviour files made must have its composite index (test/support/check-indexes.cjs).
  globalSetup: require.resolve("./test/support/check-indexes-setup.cjs"),
  globalTeardown: require.resolve("./test/support/check-indexes.cjs"),
  testSequencer: require.resolve("./test/support/sequencer.cjs"),
  testTimeout: 30000,
};
