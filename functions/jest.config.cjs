/**
 * Two projects. `functions`: unit tests beside their modules (src/**\/*.test.ts) and behaviour
 * tests through HTTP against the stack (test/). `site`: the identity host's pages' pure rules,
 * beside their modules (../site/src/**\/*.test.ts).
 */
const functions = {
  displayName: "functions",
  testEnvironment: "node",
  roots: ["<rootDir>/src", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  setupFiles: ["<rootDir>/test/support/env.ts"],
  setupFilesAfterEnv: ["<rootDir>/test/support/settle.ts"],
};

const site = {
  displayName: "site",
  testEnvironment: "node",
  rootDir: "<rootDir>/../site",
  roots: ["<rootDir>/src"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": [require.resolve("ts-jest"), { tsconfig: "<rootDir>/tsconfig.test.json" }] },
  // The deployment's /site-config.js, as the tests assume it; the toolchain lives with the functions.
  moduleNameMapper: { "^site:config$": "<rootDir>/src/testing/site-config.ts" },
  modulePaths: ["<rootDir>/../functions/node_modules"],
};

module.exports = { projects: [functions, site], testTimeout: 30000, maxWorkers: 1 };
