/**
 * API keys: `vault_` + 256 random bits (base64url), shown once at minting and stored only as their
 * SHA-256. A key is scoped read or read-write, may expire, and is refused once its owner is
 * disabled. How many requests a key may make is keys/key_budget.ts's business.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { z } from "zod";
import type { Caller } from "../../../internal/auth/mod.ts";
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

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toKey(row: {
  id: string;
  name: string;
  prefix: string;
  scope: "read" | "read-write";
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
  };
}

const LISTED = ["id", "name", "prefix", "scope", "created_at", "expires_at", "last_used_at"] as const;

export async function mintKey(
  db: Kysely<VaultDatabase>,
  userId: string,
  input: z.output<typeof mintKeyBody>,
): Promise<ApiKey & { key: string }> {
  const key = KEY_PREFIX + randomBytes(32).toString("base64url");
  const row = await db.insertInto("api_keys").values({
    id: crypto.randomUUID(),
    user_id: userId,
    name: input.name,
    prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
    key_hash: hashKey(key),
    scope: input.scope,
    expires_at: input.expiresAt ? new Date(input.expiresAt) : null,
  }).returning(LISTED).executeTakeFirstOrThrow();
  return { ...toKey(row), key };
}

export async function listKeys(db: Kysely<VaultDatabase>, userId: string): Promise<ApiKey[]> {
  const rows = await db.selectFrom("api_keys").select(LISTED).where("user_id", "=", userId)
    .orderBy("created_at", "desc").execute();
  return rows.map(toKey);
}

/** Whether the caller had such a key (another user's key is as unknown as a missing one). */
export async function revokeKey(db: Kysely<VaultDatabase>, userId: string, id: string): Promise<boolean> {
  const row = await db.deleteFrom("api_keys").where("id", "=", id).where("user_id", "=", userId)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** The caller a key stands for, or undefined when it is unknown, expired, or its owner disabled. */
export async function resolveKey(
  db: Kysely<VaultDatabase>,
  key: string,
): Promise<Omit<Caller, "via"> | undefined> {
  const counted = await db.updateTable("api_keys")
    .set({ last_used_at: sql`now()` })
    .where("key_hash", "=", hashKey(key))
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", sql<Date>`now()`)]))
    .returning(["user_id", "scope", "key_hash"])
    .executeTakeFirst();
  if (!counted) return undefined;
  const user = await db.selectFrom("user").select(["id", "email", "role", "banned"])
    .where("id", "=", counted.user_id).executeTakeFirst();
  if (!user || user.banned) return undefined;
  return {
    userId: user.id,
    email: user.email,
    role: user.role === "admin" ? "admin" : "user",
    tokenHash: counted.key_hash,
    scope: counted.scope,
  };
}
