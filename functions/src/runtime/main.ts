/**
 * What the platform and the Functions emulator load (package.json `main`). An instance that serves
 * requests is started with FUNCTION_TARGET naming its function: it loads that function's bundle
 * (bundles.ts) and nothing else, no other group and nothing from node_modules. Anywhere else
 * (deploy, the emulator's discovery) it is the deploy manifest, ../index.ts.
 */
import { startBundle } from "./bundles";

const target = process.env.FUNCTION_TARGET;

export = target
  ? { [target]: startBundle(target) }
  : // eslint-disable-next-line @typescript-eslint/no-require-imports -- the manifest loads the SDK, which an instance never needs
    (require("../index") as typeof import("../index"));
