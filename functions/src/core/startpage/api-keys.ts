import type { Deps } from "../deps";
import * as apiKeys from "../../store/api-keys";
import { constantTimeEqual, sha256 } from "../secrets";

const PREFIX_LENGTH = 8;

type KeyDeps = Pick<Deps, "store" | "clock">;

/**
 * A key's id: the start of its hash, enough to tell keys apart (two keys may share a prefix) and
 * nothing to learn the key from.
 */
export const API_KEY_ID_LENGTH = 16;
export const apiKeyId = (key: Pick<apiKeys.ApiKey, "hash">) => key.hash.slice(0, API_KEY_ID_LENGTH);

/** Stores a key the operator chose (the local seed's `dev-api-key`, or one moved from elsewhere). */
export async function registerApiKey(
  deps: KeyDeps,
  key: string,
  label: string,
): Promise<{ prefix: string; id: string }> {
  const prefix = key.slice(0, PREFIX_LENGTH);
  const hash = sha256(key);
  await apiKeys.save(deps.store, { hash, prefix, label, createdAt: deps.clock.now(), revokedAt: null });
  return { prefix, id: apiKeyId({ hash }) };
}

/** Issues a new key (192 random bits). The key is shown once, here; only its hash is kept. */
export async function issueApiKey(
  deps: KeyDeps & Pick<Deps, "random">,
  label: string,
): Promise<{ key: string; prefix: string; id: string }> {
  const key = `isk_${deps.random.token(24)}`;
  return { key, ...(await registerApiKey(deps, key, label)) };
}

/** Revokes the one key with this id; null when no key has it. Revoking a revoked key changes nothing. */
export async function revokeApiKeyById(deps: KeyDeps, id: string): Promise<apiKeys.ApiKey | null> {
  if (!/^[0-9a-f]+$/.test(id) || id.length !== API_KEY_ID_LENGTH) return null;
  const key = (await apiKeys.list(deps.store)).find((k) => apiKeyId(k) === id);
  if (!key || key.revokedAt !== null) return key ?? null;
  const at = deps.clock.now();
  await apiKeys.revoke(deps.store, key.hash, at);
  return { ...key, revokedAt: at };
}

/** Revokes every live key whose prefix matches; returns how many. */
export async function revokeApiKey(deps: KeyDeps, prefix: string): Promise<number> {
  const live = (await apiKeys.list(deps.store)).filter((k) => k.prefix === prefix && k.revokedAt === null);
  await Promise.all(live.map((k) => apiKeys.revoke(deps.store, k.hash, deps.clock.now())));
  return live.length;
}

/** Every key's record (prefix, label, dates; never a key), optionally those with one prefix. */
export async function listApiKeys(deps: Pick<Deps, "store">, prefix?: string): Promise<apiKeys.ApiKey[]> {
  return (await apiKeys.list(deps.store)).filter((k) => prefix === undefined || k.prefix === prefix);
}

/** The live key record for a presented key, or null. */
export async function checkApiKey(deps: Pick<Deps, "store">, presented: string): Promise<apiKeys.ApiKey | null> {
  const hash = sha256(presented);
  const stored = await apiKeys.findByHash(deps.store, hash);
  // The lookup is by hash; comparing the stored hash again in constant time costs nothing and
  // keeps the decision itself free of early exits.
  if (!stored || !constantTimeEqual(stored.hash, hash)) return null;
  return stored.revokedAt === null ? stored : null;
}
