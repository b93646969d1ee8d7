/**
 * The deploy manifest: one HTTPS function per endpoint group, the secrets each may read, and
 * nothing else. Every app applies the contract's cross-origin rules itself (http/cors).
 */
import { codePepper, federatedClientSecrets, idpSigningSecret, sessionKeys, smtpPassword } from "./params";
import { GROUPS } from "./groups";
import { httpsFunction } from "./http/function";

export const sessions = httpsFunction("sessions", GROUPS.sessions, { secrets: [sessionKeys] });
export const otp = httpsFunction("otp", GROUPS.otp, { secrets: [sessionKeys, codePepper, smtpPassword] });
export const bridge = httpsFunction("bridge", GROUPS.bridge, { secrets: [sessionKeys, federatedClientSecrets] });
export const oidc = httpsFunction("oidc", GROUPS.oidc, { secrets: [sessionKeys] });
export const people = httpsFunction("people", GROUPS.people, { secrets: [sessionKeys] });
export const startpage = httpsFunction("startpage", GROUPS.startpage, { secrets: [sessionKeys] });
export const calendar = httpsFunction("calendar", GROUPS.calendar, { secrets: [sessionKeys] });
export const location = httpsFunction("location", GROUPS.location, { secrets: [sessionKeys] });
export const status = httpsFunction("status", GROUPS.status, { secrets: [sessionKeys, smtpPassword] });
export const claims = httpsFunction("claims", GROUPS.claims, { secrets: [idpSigningSecret] });
