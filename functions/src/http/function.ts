import { onRequest, type HttpsFunction, type HttpsOptions } from "firebase-functions/v2/https";
import { startBundle, type Handler } from "../bundles";

/**
 * What every group runs with. One region for all, beside Hosting's default for rewrites; a whole
 * vCPU, which the platform requires for more than one request at a time per instance; CORS is the
 * apps' own (http/cors). Why each value: docs/deploying.md.
 */
export const COMMON_OPTIONS = { region: "us-central1", cpu: 1, cors: false } as const satisfies HttpsOptions;

/** What each group decides for itself, every field required so none is left to a platform default. */
export type GroupOptions = Required<
  Pick<HttpsOptions, "memory" | "timeoutSeconds" | "concurrency" | "minInstances" | "maxInstances" | "secrets">
>;

/**
 * One endpoint group as an HTTPS function, as the manifest is read (deploy, the emulator's
 * discovery): declared through `onRequest`, so the platform sees its options and secrets. An
 * instance never runs this: it is started with FUNCTION_TARGET, and main.ts hands it its bundle.
 * Should anything call the handler here, it serves the same way, from the bundle.
 */
export function httpsFunction(name: string, options: GroupOptions): HttpsFunction {
  let handler: Handler | undefined;
  return onRequest({ ...COMMON_OPTIONS, ...options }, (req, res) => {
    handler ??= startBundle(name);
    handler(req, res);
  });
}
