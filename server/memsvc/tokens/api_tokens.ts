/**
 * User API tokens (`nm_...`): the bearer credential agent hosts keep in their config files, in the
 * store the vault's keys use too (internal/auth/api_keys.ts). Only the SHA-256 of a token is stored,
 * so a database leak yields no usable credential; the plaintext is returned once, when the token is
 * created or rotated. A token's public identifier is its hash (`tokenHash`).
 */
import type { Kysely } from "kysely";
import {
  ApiKeyStore,
  type ApiKeyTable,
  generateApiKey,
  hashApiKey,
  type Role,
} from "../../../internal/auth/mod.ts";
import { ValidationError } from "../../../internal/http/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { TokenCache } from "../auth/token_cache.ts";
import { announceCacheChange } from "../store/cache_notices.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export const TOKEN_PREFIX = "nm_";
const MAX_LABEL_LENGTH = 100;

/** `nm_` + 32 CSPRNG bytes in base64url (43 characters): 256 bits, far beyond guessing. */
export function generateToken(): string {
  return generateApiKey(TOKEN_PREFIX);
}

/** SHA-256 hex of a plaintext token: the stored form and the public identifier (`tokenHash`). */
export function hashToken(plaintext: string): Promise<string> {
  return Promise.resolve(hashApiKey(plaintext));
}

/** memsvc's user_tokens table: the hash is the key's id. */
const USER_TOKENS: ApiKeyTable = {
  name: "user_tokens",
  id: "token_hash",
  hash: "token_hash",
  userId: "user_id",
  label: "label",
  createdAt: "created_at",
  lastUsedAt: "last_used_at",
};

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
  readonly #keys: ApiKeyStore;
  readonly #maxPerUser: number;

  constructor(db: Kysely<MemsvcDatabase>, options: TokenStoreOptions = {}) {
    this.#maxPerUser = options.maxTokensPerUser ?? 100;
    this.#keys = new ApiKeyStore(db, {
      keyPrefix: TOKEN_PREFIX,
      table: USER_TOKENS,
      maxPerUser: this.#maxPerUser,
      lastUsedDebounceMs: options.lastUsedDebounceMs,
      log: options.log,
      now: options.now,
      cache: options.cache,
      // Other replicas' copies of the owner go (store/cache_notices.ts).
      onRemoved: (hash) => announceCacheChange(db, `t:${hash}`),
    });
  }

  /** Mints a token for the user; 400 (ValidationError) for a bad label or when the user is at the limit. */
  async create(userId: string, label: string): Promise<IssuedToken> {
    const cleanLabel = checkLabel(label);
    const { key, stored } = await this.#keys.create(userId, cleanLabel, {
      tooMany: `a user may hold at most ${this.#maxPerUser} API tokens; delete one first`,
    });
    return { tokenHash: stored.hash, label: cleanLabel, token: key };
  }

  /** The user's tokens, newest first, identified by hash only. */
  async list(userId: string): Promise<TokenInfo[]> {
    return (await this.#keys.list(userId)).map((stored) => ({
      tokenHash: stored.hash,
      label: stored.label,
      createdAt: stored.createdAt.toISOString(),
      lastUsedAt: stored.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /** Deletes one of the user's own tokens; false when the user owns no token with that hash. */
  delete(userId: string, tokenHash: string): Promise<boolean> {
    return this.#keys.revoke(userId, tokenHash);
  }

  /**
   * Replaces a token with a new one of the same owner and label. Both happen in one transaction: the
   * old token stops working exactly when the new one exists. Undefined when the old one is gone.
   */
  async rotate(tokenHash: string): Promise<IssuedToken | undefined> {
    const rotated = await this.#keys.rotate(tokenHash);
    return rotated && { tokenHash: rotated.stored.hash, label: rotated.stored.label, token: rotated.key };
  }

  /** Deletes the token whose plaintext is given, whoever owns it; undefined when unknown. */
  async revoke(plaintext: string): Promise<{ userId: string; tokenHash: string } | undefined> {
    const revoked = await this.#keys.revokeSecret(plaintext);
    return revoked && { userId: revoked.userId, tokenHash: revoked.hash };
  }

  /**
   * The owner of a presented token, or undefined for an unknown token or a banned owner. Records the
   * use without making the request wait for it.
   */
  async resolve(plaintext: string): Promise<TokenOwner | undefined> {
    const owner = await this.#keys.resolve(plaintext);
    return owner && { userId: owner.userId, email: owner.email, role: owner.role, tokenHash: owner.hash };
  }

  /** Resolves when every last-used write started so far has finished; call before closing the database. */
  drain(): Promise<void> {
    return this.#keys.drain();
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
