/**
 * What a deploy of the functions weighs: the upload (functions/ less firebase.json's `ignore`,
 * i.e. package.json, the lock file and lib/) and what the platform's build installs and keeps
 * (`npm prune` leaves the `dependencies` of package.json and theirs), both read from this
 * checkout: the packages from functions/node_modules/.package-lock.json, which records where each
 * one is installed and what it depends on.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { functionsDir } from "./functions.ts";

interface LockPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Weight {
  files: number;
  bytes: number;
  /** Each file deflated, as the upload's zip stores it. */
  deflated: number;
}

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && keep(path));
}

export function weigh(files: string[], deflate = true): Weight {
  let bytes = 0;
  let deflated = 0;
  for (const file of files) {
    const data = readFileSync(file);
    bytes += data.length;
    if (deflate) deflated += deflateRawSync(data).length;
  }
  return { files: files.length, bytes, deflated };
}

/** The upload: package.json, the lock file and lib/ (`keep` says which of lib/). */
export function upload(keep: (path: string) => boolean): Weight {
  return weigh([
    join(functionsDir, "package.json"),
    join(functionsDir, "package-lock.json"),
    ...filesUnder(join(functionsDir, "lib"), keep),
  ]);
}

/** Every file of the packages `roots` need, as npm resolves them (nearest node_modules up the tree). */
export function installed(roots: string[]): Weight {
  const lock = JSON.parse(readFileSync(join(functionsDir, "node_modules", ".package-lock.json"), "utf8")) as {
    packages: Record<string, LockPackage>;
  };
  const resolve = (from: string, name: string): string | null => {
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/node_modules/")))) {
      const path = `${at === "" ? "" : `${at}/`}node_modules/${name}`;
      if (lock.packages[path]) return path;
      if (at === "") return null;
    }
  };
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const pkg = lock.packages[path] as LockPackage;
    const required = Object.keys(pkg.peerDependencies ?? {}).filter((n) => !pkg.peerDependenciesMeta?.[n]?.optional);
    for (const name of [...Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }), ...required]) {
      const found = resolve(path, name);
      if (found) visit(found);
    }
  };
  for (const name of roots) visit(`node_modules/${name}`);
  // A package's own files only: a nested node_modules is another package, counted if needed.
  const own = [...seen].flatMap((path) =>
    filesUnder(join(functionsDir, path), (f) => !f.slice(join(functionsDir, path).length).includes("/node_modules/")),
  );
  return weigh(own, false);
}
