import * as nodeModule from "node:module";
import { join } from "node:path";

/**
 * V8's compiled code of every module an instance loads, kept beside the code: a fresh instance
 * then compiles nothing that its first request loads, about a fifth of that request
 * (bench/RESULTS.md §4b). The platform's build writes it (`gcp-build`, gcp-build.ts)
 * with the runtime's own Node; the local stack's functions write it on their first run.
 *
 * Portable: entries are keyed by path relative to this directory, so they hold wherever the
 * source is unpacked. Node checks each entry against the source's hash and its own version, and
 * compiles afresh where one does not match, so a stale or foreign cache costs nothing but its
 * benefit. NODE_DISABLE_COMPILE_CACHE=1 turns it off (the cold-start bench's baseline).
 */
export const COMPILE_CACHE_DIR = join(__dirname, "..", ".compile-cache");

// Node before 22.1 has no compile cache: it then loads as it always did.
const enable = nodeModule.enableCompileCache as typeof nodeModule.enableCompileCache | undefined;
enable?.({ directory: COMPILE_CACHE_DIR, portable: true });
