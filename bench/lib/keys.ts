import { execFileSync } from "node:child_process";
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** An RSA key as the SESSION_KEYS secret holds it. */
export function sessionKeysJson(kid: string): string {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return JSON.stringify([{ ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" }]);
}

/**
 * A key pair with a self-signed X.509 certificate, the form in which the provider publishes the
 * keys of its session cookies (and in which firebase-admin hands them to its verifier).
 */
export function certifiedKey(): { privateKeyPem: string; certPem: string } {
  const dir = mkdtempSync(join(tmpdir(), "bench-cert-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=bench",
      "-days",
      "2",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  return {
    privateKeyPem: createPrivateKey(readFileSync(join(dir, "key.pem")))
      .export({ format: "pem", type: "pkcs8" })
      .toString(),
    certPem: readFileSync(join(dir, "cert.pem"), "utf8"),
  };
}
