/**
 * The former API-key tool, kept as an alias: `node lib/ops/api-keys.js issue|revoke|list …` is
 * `npm run admin -- api-keys issue|revoke|list …` (see ops/admin.ts).
 */
import { run } from "./admin";

run(["api-keys", ...process.argv.slice(2)]);
