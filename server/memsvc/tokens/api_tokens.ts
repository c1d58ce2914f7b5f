/**
 * User API tokens (`nm_...`): the bearer credential agent hosts keep in their config files. Only the
 * SHA-256 of a token is stored, so a database leak yields no usable credential; the plaintext is
 * returned once, when the token is created or rotated.
 */
import { Buffer } from "node:buffer";
import type { Kysely } from "kysely";
import { keepingCopies } from "../../../internal/db/mod.ts";
import { ValidationError } from "../../../internal/http/mod.ts";
import { type Logger, silentLogger } from "../../../internal/log/mod.ts";
import { type Role, sha256Hex } from "../../../internal/auth/mod.ts";
import type { TokenCache, TokenOwnerRow } from "../auth/token_cache.ts";
import { announceCacheChange } from "../store/cache_notices.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export const TOKEN_PREFIX = "nm_";
const MAX_LABEL_LENGTH = 100;
/** How many tokens' last-used times are remembered for debouncing; the oldest is forgotten first. */
const MAX_TRACKED_TOKENS = 10_000;

/** `nm_` + 32 CSPRNG bytes in base64url (43 characters): 256 bits, far beyond guessing. */
export function generateToken(): string {
  return TOKEN_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/**
 * SHA-256 hex of a plaintext token: the stored form and the public identifier (`tokenHash`). Hashed on
 * every request that carries one, so synchronously (node:crypto, 1–3 µs; `crypto.subtle` costs tens).
 */
export function hashToken(plaintext: string): Promise<string> {
  return Promise.resolve(sha256Hex(plaintext));
}

/** A token as shown to its owner once: the plaintext is never readable again. */
export interface IssuedToken {
  tokenHash: string;
  label: string;
  token: string;
}

export interface TokenInfo {
  tokenHash: string;
  label: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; null until first use. Recorded at most once per debounce window. */
  lastUsedAt: string | null;
}

export interface TokenOwner {
  userId: string;
  email: string;
  role: Role;
  tokenHash: string;
}

export interface TokenStoreOptions {
  /** At most one last_used_at write per token in this many milliseconds. Default 60 000. */
  lastUsedDebounceMs?: number;
  /** Tokens one user may hold. Default 100. */
  maxTokensPerUser?: number;
  /** Where failed last-used writes are reported (at warn). Default silent. */
  log?: Logger;
  /** Clock in epoch milliseconds, for ban expiry and debouncing. Default Date.now. */
  now?: () => number;
  /** Owners of recently used tokens (auth/token_cache.ts); default none: every resolve reads. */
  cache?: TokenCache;
}

export class TokenStore {
  readonly #db: Kysely<MemsvcDatabase>;
  readonly #debounceMs: number;
  readonly #maxPerUser: number;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #cache: TokenCache | undefined;
  /** tokenHash -> when its last_used_at was last written, oldest first. */
  readonly #lastWritten = new Map<string, number>();
  readonly #pendingWrites = new Set<Promise<void>>();

  constructor(db: Kysely<MemsvcDatabase>, options: TokenStoreOptions = {}) {
    this.#db = db;
    this.#debounceMs = options.lastUsedDebounceMs ?? 60_000;
    this.#maxPerUser = options.maxTokensPerUser ?? 100;
    this.#log = options.log ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#cache = options.cache;
  }

  /** Mints a token for the user; 400 (ValidationError) for a bad label or when the user is at the limit. */
  async create(userId: string, label: string): Promise<IssuedToken> {
    const cleanLabel = checkLabel(label);
    const token = generateToken();
    const tokenHash = await hashToken(token);
    await this.#db.transaction().execute(async (trx) => {
      // Locking the owner's row serialises concurrent creates, so the count below stays true.
      await trx.selectFrom("user").select("id").where("id", "=", userId).forUpdate()
        .executeTakeFirstOrThrow(() => new Error(`no user with id ${userId}`));
      const { count } = await trx.selectFrom("user_tokens")
        .select((eb) => eb.fn.countAll<string>().as("count"))
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= this.#maxPerUser) {
        throw new ValidationError([{
          path: [],
          message: `a user may hold at most ${this.#maxPerUser} API tokens; delete one first`,
          code: "too_many_tokens",
        }]);
      }
      await trx.insertInto("user_tokens").values({
        token_hash: tokenHash,
        user_id: userId,
        label: cleanLabel,
      })
        .execute();
    });
    return { tokenHash, label: cleanLabel, token };
  }

  /** The user's tokens, newest first, identified by hash only. */
  async list(userId: string): Promise<TokenInfo[]> {
    const rows = await this.#db.selectFrom("user_tokens")
      .select(["token_hash", "label", "created_at", "last_used_at"])
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("token_hash")
      .execute();
    return rows.map((row) => ({
      tokenHash: row.token_hash,
      label: row.label,
      createdAt: row.created_at.toISOString(),
      lastUsedAt: row.last_used_at?.toISOString() ?? null,
    }));
  }

  /** Deletes one of the user's own tokens; false when the user owns no token with that hash. */
  async delete(userId: string, tokenHash: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("user_tokens")
      .where("token_hash", "=", tokenHash)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    if (result.numDeletedRows > 0n) announceCacheChange(this.#db, `t:${tokenHash}`);
    return result.numDeletedRows > 0n;
  }

  /**
   * Replaces a token with a new one of the same owner and label. Both happen in one transaction: the
   * old token stops working exactly when the new one exists. Undefined when the old one is gone.
   */
  async rotate(tokenHash: string): Promise<IssuedToken | undefined> {
    const token = generateToken();
    const newHash = await hashToken(token);
    const issued = await this.#db.transaction().execute(async (trx) => {
      const old = await trx.deleteFrom("user_tokens").where("token_hash", "=", tokenHash)
        .returning(["user_id", "label"])
        .executeTakeFirst();
      if (!old) return undefined;
      await trx.insertInto("user_tokens").values({
        token_hash: newHash,
        user_id: old.user_id,
        label: old.label,
      })
        .execute();
      return { tokenHash: newHash, label: old.label, token };
    });
    if (issued) announceCacheChange(this.#db, `t:${tokenHash}`);
    return issued;
  }

  /** Deletes the token whose plaintext is given, whoever owns it; undefined when unknown. */
  async revoke(plaintext: string): Promise<{ userId: string; tokenHash: string } | undefined> {
    const tokenHash = await hashToken(plaintext);
    const row = await this.#db.deleteFrom("user_tokens").where("token_hash", "=", tokenHash)
      .returning("user_id")
      .executeTakeFirst();
    if (row) announceCacheChange(this.#db, `t:${tokenHash}`);
    return row && { userId: row.user_id, tokenHash };
  }

  /**
   * The owner of a presented token, or undefined for an unknown token or a banned owner. Records the
   * use without making the request wait for it (see #recordUse).
   */
  async resolve(plaintext: string): Promise<TokenOwner | undefined> {
    const tokenHash = await hashToken(plaintext);
    const owner = this.#cache?.get(tokenHash) ?? await this.#readOwner(tokenHash);
    if (!owner) return undefined;
    const now = this.#now();
    if (owner.banned && (owner.banExpires === null || owner.banExpires > now)) return undefined;
    this.#recordUse(tokenHash, now);
    return { userId: owner.userId, email: owner.email, role: owner.role, tokenHash };
  }

  async #readOwner(tokenHash: string): Promise<TokenOwnerRow | undefined> {
    const ticket = this.#cache?.ticket() ?? 0;
    const row = await this.#db.selectFrom("user_tokens")
      .innerJoin("user", "user.id", "user_tokens.user_id")
      .select(["user.id", "user.email", "user.role", "user.banned", "user.banExpires"])
      .where("user_tokens.token_hash", "=", tokenHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const owner: TokenOwnerRow = {
      userId: row.id,
      email: row.email,
      role: row.role === "admin" ? "admin" : "user",
      banned: !!row.banned,
      banExpires: row.banExpires?.getTime() ?? null,
    };
    this.#cache?.set(tokenHash, owner, owner.userId, ticket);
    return owner;
  }

  /** Resolves when every last-used write started so far has finished; call before closing the database. */
  async drain(): Promise<void> {
    await Promise.all(this.#pendingWrites);
  }

  /**
   * Writes last_used_at at most once per debounce window per token, in the background: a busy agent
   * would otherwise turn every read into a write, and a failed write must not fail its request.
   */
  #recordUse(tokenHash: string, now: number): void {
    const last = this.#lastWritten.get(tokenHash);
    if (last !== undefined && now - last < this.#debounceMs) return;
    this.#lastWritten.delete(tokenHash);
    this.#lastWritten.set(tokenHash, now);
    if (this.#lastWritten.size > MAX_TRACKED_TOKENS) {
      this.#lastWritten.delete(this.#lastWritten.keys().next().value!);
    }
    // Marked: it writes no row search keeps a copy of, so those copies stay (write_count.ts).
    const update = this.#db.updateTable("user_tokens").set({ last_used_at: new Date(now) })
      .where("token_hash", "=", tokenHash);
    const write = this.#db.executeQuery(keepingCopies(update.compile()))
      .then(
        () => {},
        (err) => this.#log.warn("could not record API token use", { err, tokenHash }),
      )
      .finally(() => this.#pendingWrites.delete(write));
    this.#pendingWrites.add(write);
  }
}

/** Labels are trimmed and must then be 1 to 100 characters. */
function checkLabel(label: string): string {
  const trimmed = label.trim();
  const length = [...trimmed].length;
  if (length < 1 || length > MAX_LABEL_LENGTH) {
    throw new ValidationError([{
      path: ["label"],
      message: `label must be 1 to ${MAX_LABEL_LENGTH} characters after trimming`,
      code: "invalid_label",
    }]);
  }
  return trimmed;
}
