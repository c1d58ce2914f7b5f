/**
 * API keys: `vault_` + 256 random bits (base64url), shown once at minting and stored only as their
 * SHA-256. A key is scoped read or read-write, may expire, and is refused once its owner is
 * disabled. Each key may make 300 requests per 15 minutes; the window is kept on the key's row and
 * advanced in the same statement that counts, so every replica counts the same requests.
 */
import { createHash, randomBytes } from "node:crypto";
import { HTTPException } from "hono/http-exception";
import { type Kysely, sql } from "kysely";
import { z } from "zod";
import type { Caller } from "../../../internal/auth/mod.ts";
import type { VaultDatabase } from "../store/db.ts";

export const KEY_PREFIX = "vault_";
/** The installer stores this many leading characters to recognise a key without its secret. */
export const SHOWN_PREFIX_LENGTH = 16;
export const RATE_LIMIT = 300;
export const RATE_WINDOW_SECONDS = 15 * 60;

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

/**
 * The caller a key stands for, or undefined when it is unknown, expired, or its owner disabled.
 * Counts the request in the key's window first; past the limit it throws 429 with Retry-After.
 */
export async function resolveKey(
  db: Kysely<VaultDatabase>,
  key: string,
): Promise<Omit<Caller, "via"> | undefined> {
  const counted = await db.updateTable("api_keys")
    .set({
      // A window older than 15 minutes starts over with this request.
      window_start: sql`case when window_start <= now() - make_interval(secs => ${RATE_WINDOW_SECONDS})
        then now() else window_start end`,
      window_count: sql`case when window_start <= now() - make_interval(secs => ${RATE_WINDOW_SECONDS})
        then 1 else window_count + 1 end`,
      last_used_at: sql`now()`,
    })
    .where("key_hash", "=", hashKey(key))
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", sql<Date>`now()`)]))
    .returning([
      "user_id",
      "scope",
      "key_hash",
      "window_count",
      sql<
        number
      >`ceil(extract(epoch from window_start + make_interval(secs => ${RATE_WINDOW_SECONDS}) - now()))`
        .as("retry_after"),
    ])
    .executeTakeFirst();
  if (!counted) return undefined;
  const user = await db.selectFrom("user").select(["id", "email", "role", "banned"])
    .where("id", "=", counted.user_id).executeTakeFirst();
  if (!user || user.banned) return undefined;
  if (counted.window_count > RATE_LIMIT) {
    const retryAfterSeconds = Math.max(1, Number(counted.retry_after));
    throw new HTTPException(429, {
      res: Response.json({ error: "too many requests", retryAfterSeconds }, {
        status: 429,
        headers: { "Retry-After": String(retryAfterSeconds) },
      }),
    });
  }
  return {
    userId: user.id,
    email: user.email,
    role: user.role === "admin" ? "admin" : "user",
    tokenHash: counted.key_hash,
    scope: counted.scope,
  };
}
