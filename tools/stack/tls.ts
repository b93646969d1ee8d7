/**
 * The local https front's certificate: a local certificate authority, made once per checkout and
 * kept in .stack/tls (so a person who chooses to trust it does so once), and a certificate it
 * signs for the parent domain, its subdomains and a foreign test host.
 */
import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";

export interface Tls {
  key: Buffer;
  cert: Buffer;
  /** The authority's certificate, for a browser or system trust store. */
  caPath: string;
  /** base64 SHA-256 of the served certificate's public key: Chromium's --ignore-certificate-errors-spki-list. */
  spki: string;
}

const DAY_MS = 24 * 3600 * 1000;

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: "ignore" });
}

function stillGood(path: string, names: string[]): boolean {
  if (!existsSync(path)) return false;
  const cert = new X509Certificate(readFileSync(path));
  const sans = cert.subjectAltName ?? "";
  return (
    new Date(cert.validTo).getTime() - Date.now() > 7 * DAY_MS &&
    names.every((n) => sans.includes(isIP(n) === 0 ? `DNS:${n}` : `IP Address:${n}`))
  );
}

export function localTls(dir: string, names: string[]): Tls {
  mkdirSync(dir, { recursive: true });
  const caKey = join(dir, "ca-key.pem");
  const caPath = join(dir, "ca.pem");
  if (!existsSync(caPath) || !stillGood(caPath, [])) {
    openssl([
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      caKey,
      "-out",
      caPath,
      "-days",
      "825",
      "-subj",
      "/CN=Identity service local stack CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
  }
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  if (!stillGood(certPath, names)) {
    const csr = join(dir, "leaf.csr");
    const ext = join(dir, "leaf.ext");
    writeFileSync(
      ext,
      `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${names.map((n) => `${isIP(n) === 0 ? "DNS" : "IP"}:${n}`).join(",")}\n`,
    );
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", csr, "-subj", `/CN=${names[0]}`]);
    // 397 days: the longest a browser accepts for a server certificate.
    openssl([
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      caPath,
      "-CAkey",
      caKey,
      "-CAcreateserial",
      "-out",
      certPath,
      "-days",
      "397",
      "-extfile",
      ext,
    ]);
  }
  const cert = readFileSync(certPath);
  const spkiDer = new X509Certificate(cert).publicKey.export({ type: "spki", format: "der" });
  return { key: readFileSync(keyPath), cert, caPath, spki: createHash("sha256").update(spkiDer).digest("base64") };
}
