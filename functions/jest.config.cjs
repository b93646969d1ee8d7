/** Unit tests sit beside their modules (src/**\/*.test.ts); behaviour tests live in test/. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/src", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }],
  },
  setupFiles: ["<rootDir>/test/support/env.ts"],
  testTimeout: 30000,
  maxWorkers: 1,
};
