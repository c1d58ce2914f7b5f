/**
 * API keys: `vault_` + 256 random bits (base64url), shown once at minting and stored only as their
 * SHA-256 (internal/auth/api_keys.ts, the store memsvc's tokens use too). A key is scoped read or
 * read-write, may expire, and is refused once its owner is disabled. How many requests a key may make
 * is keys/key_budget.ts's business.
 */
import type { Kysely } from "kysely";
import { z } from "zod";
import { ApiKeyStore, type ApiKeyTable, type Caller, type StoredKey } from "../../../internal/auth/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export const KEY_PREFIX = "vault_";
/** The installer stores this many leading characters to recognise a key without its secret. */
export const SHOWN_PREFIX_LENGTH = 16;

export const apiKeyScope = z.enum(["read", "read-write"]);

export const mintKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200).describe("e.g. vault-init-<hostname>-<timestamp>"),
  scope: apiKeyScope,
  expiresAt: z.iso.datetime({ offset: true }).optional().describe(
    "when the key stops working; default never",
  ),
});

export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe(`the first ${SHOWN_PREFIX_LENGTH} characters of the key`),
  scope: apiKeyScope,
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
}).meta({ id: "ApiKey" });

export const mintedKey = apiKey.extend({
  key: z.string().describe("the key itself: shown this once, stored only as its SHA-256"),
}).meta({ id: "MintedApiKey" });

export type ApiKey = z.output<typeof apiKey>;

/** The vault's api_keys table, as the shared store (internal/auth/api_keys.ts) names its columns. */
const API_KEYS: ApiKeyTable = {
  name: "api_keys",
  id: "id",
  hash: "key_hash",
  userId: "user_id",
  label: "name",
  createdAt: "created_at",
  lastUsedAt: "last_used_at",
  prefix: "prefix",
  expiresAt: "expires_at",
};

/**
 * The vault's keys: ids of their own, a shown prefix, a scope, an expiry. The request budget's
 * columns (bucket_tokens, bucket_at) are keys/shared_key_buckets.ts's.
 */
export function vaultKeyStore(db: Kysely<VaultDatabase>, log?: Logger): ApiKeyStore {
  return new ApiKeyStore(db, {
    keyPrefix: KEY_PREFIX,
    table: API_KEYS,
    newId: () => crypto.randomUUID(),
    shownPrefixLength: SHOWN_PREFIX_LENGTH,
    extra: ["scope"],
    log,
  });
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toKey(stored: StoredKey): ApiKey {
  return {
    id: stored.id,
    name: stored.label,
    prefix: stored.prefix!,
    scope: stored.extra.scope as ApiKey["scope"],
    createdAt: stored.createdAt.toISOString(),
    expiresAt: iso(stored.expiresAt),
    lastUsedAt: iso(stored.lastUsedAt),
  };
}

export async function mintKey(
  keys: ApiKeyStore,
  userId: string,
  input: z.output<typeof mintKeyBody>,
): Promise<ApiKey & { key: string }> {
  const { key, stored } = await keys.create(userId, input.name, {
    values: { scope: input.scope },
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
  });
  return { ...toKey(stored), key };
}

export async function listKeys(keys: ApiKeyStore, userId: string): Promise<ApiKey[]> {
  return (await keys.list(userId)).map(toKey);
}

/** The caller a key stands for, or undefined when it is unknown, expired, or its owner disabled. */
export async function resolveKey(keys: ApiKeyStore, key: string): Promise<Omit<Caller, "via"> | undefined> {
  const owner = await keys.resolve(key);
  return owner && {
    userId: owner.userId,
    email: owner.email,
    role: owner.role,
    tokenHash: owner.hash,
    scope: owner.extra.scope as ApiKey["scope"],
  };
}
