/**
 * The deploy manifest: one HTTPS function per endpoint group, the secrets each may read, and
 * nothing else. Each group's code loads on its first request (see http/serve).
 * `cors: false`: every app applies the contract's cross-origin rules itself (http/cors).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- each group loads on first use */
import { setGlobalOptions } from "firebase-functions/v2/options";
import { onRequest } from "firebase-functions/v2/https";
import { codePepper, idpSigningSecret, sessionKeys, smtpPassword } from "./config";
import { serve } from "./http/serve";

setGlobalOptions({ region: "us-central1", memory: "256MiB", concurrency: 80 });

export const sessions = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/sessions")));
export const otp = onRequest({ cors: false, secrets: [sessionKeys, codePepper, smtpPassword] }, serve(() => require("./routes/otp")));
export const bridge = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/bridge")));
export const oidc = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/oidc")));
export const people = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/people")));
export const startpage = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/startpage")));
export const calendar = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/calendar")));
export const location = onRequest({ cors: false, secrets: [sessionKeys] }, serve(() => require("./routes/location")));
export const status = onRequest({ cors: false, secrets: [sessionKeys, smtpPassword] }, serve(() => require("./routes/status")));
export const claims = onRequest({ cors: false, secrets: [idpSigningSecret] }, serve(() => require("./routes/claims")));
