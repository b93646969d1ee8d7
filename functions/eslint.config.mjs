import tseslint from "typescript-eslint";

const clockOrRandom = [
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: "Read time through the injected clock (clock.ts).",
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: "Read time through the injected clock (clock.ts).",
  },
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
    message: "Use the injected random source (random.ts).",
  },
];

export default tseslint.config(
  { ignores: ["lib/**", "node_modules/**", "dist/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "no-restricted-syntax": ["error", ...clockOrRandom],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["src/clock.ts", "src/random.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // jest's plug-ins (test/support/*.cjs) are CommonJS, loaded by jest itself.
    files: ["**/*.cjs"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
