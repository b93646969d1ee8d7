/**
 * The deploy manifest: one HTTPS function per endpoint group, the secrets each may read, and
 * nothing else. Every app applies the contract's cross-origin rules itself (http/cors).
 */
import { codePepper, federatedClientSecrets, idpSigningSecret, sessionKeys, smtpPassword } from "./config";
import { httpsFunction } from "./http/function";

export const sessions = httpsFunction("sessions", { secrets: [sessionKeys] });
export const otp = httpsFunction("otp", { secrets: [sessionKeys, codePepper, smtpPassword] });
export const bridge = httpsFunction("bridge", { secrets: [sessionKeys, federatedClientSecrets] });
export const oidc = httpsFunction("oidc", { secrets: [sessionKeys] });
export const people = httpsFunction("people", { secrets: [sessionKeys] });
export const startpage = httpsFunction("startpage", { secrets: [sessionKeys] });
export const calendar = httpsFunction("calendar", { secrets: [sessionKeys] });
export const location = httpsFunction("location", { secrets: [sessionKeys] });
export const status = httpsFunction("status", { secrets: [sessionKeys, smtpPassword] });
export const claims = httpsFunction("claims", { secrets: [idpSigningSecret] });
