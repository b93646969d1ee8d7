/**
 * Tests run against the emulators that `npm test` starts (tools/stack.ts), which exports where
 * they are. Running jest by hand needs the same variables; say so instead of hanging.
 */
const required = [
  "GCLOUD_PROJECT",
  "FIRESTORE_EMULATOR_HOST",
  "FIREBASE_AUTH_EMULATOR_HOST",
  "STACK_BASE_URL",
  "STACK_ID_URL",
  "STACK_MAIL_URL",
];
const missing = required.filter((name) => !process.env[name]);
if (missing.length > 0) {
  throw new Error(`missing ${missing.join(", ")}: run the suite with \`npm test\` from the repository root`);
}
