/**
 * API keys, the bearer credentials agent hosts keep in their config files (memsvc's `nm_` tokens, the
 * vault's `vault_` keys): `<prefix>` + 32 CSPRNG bytes in base64url (256 bits), shown once when made
 * and stored only as their SHA-256, so a database leak yields no usable credential. One store serves
 * every tool; each keeps its own table and column names (`ApiKeyTable`), and its own extra columns
 * (the vault's scope), without a migration.
 *
 * Resolving a key is on every request that carries one: one read of the key and its owner (or a copy
 * from the tool's `cache`), a ban judged at use (a ban that expires needs no change), and the last use
 * written at most once per `lastUsedDebounceMs` per key, in the background, so a busy agent does not
 * turn every read into a write and a failed write fails no request.
 *
 * @example
 * const keys = new ApiKeyStore(db, {
 *   keyPrefix: "vault_",
 *   table: { name: "api_keys", id: "id", hash: "key_hash", userId: "user_id", name: "name",
 *            createdAt: "created_at", lastUsedAt: "last_used_at", prefix: "prefix", expiresAt: "expires_at" },
 *   newId: () => crypto.randomUUID(),
 *   extra: ["scope"],
 * });
 * const { key, stored } = await keys.create(userId, "laptop", { values: { scope: "read" } });
 * const owner = await keys.resolve(key); // undefined: unknown, revoked, expired, or a banned owner's
 */
import { Buffer } from "node:buffer";
import type { Kysely } from "kysely";
import { keepingCopies } from "../db/mod.ts";
import { ValidationError } from "../http/mod.ts";
import { type Logger, silentLogger } from "../log/mod.ts";
import type { Role } from "./caller.ts";
import { sha256Hex } from "./hashed_session_tokens.ts";

/** How many keys' last-used times are remembered for debouncing; the oldest is forgotten first. */
const MAX_TRACKED_KEYS = 10_000;

/** `prefix` + 32 CSPRNG bytes in base64url (43 characters): 256 bits, far beyond guessing. */
export function generateApiKey(prefix: string): string {
  return prefix + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/**
 * SHA-256 hex of a key: its stored form. Hashed on every request that carries one, so synchronously
 * (node:crypto, 1–3 µs; `crypto.subtle` costs tens).
 */
export const hashApiKey = sha256Hex;

/** Where a tool keeps its keys: the table and its columns. */
export interface ApiKeyTable {
  name: string;
  /** The key's public identifier: a column of its own (the vault's `id`), or the hash itself (memsvc's). */
  id: string;
  hash: string;
  userId: string;
  /** What the owner called it: the vault's `name`, memsvc's `label`. */
  label: string;
  createdAt: string;
  lastUsedAt: string;
  /** Keeps the key's first `shownPrefixLength` characters, to recognise it without its secret. */
  prefix?: string;
  /** Keys may expire: null or a time. */
  expiresAt?: string;
}

/** The owner of a key as read with it, kept in a tool's cache; bans and expiry are judged at each use. */
export interface KeyOwnerRow {
  userId: string;
  email: string;
  role: Role;
  banned: boolean;
  /** Epoch milliseconds; null: a ban without end. */
  banExpires: number | null;
  /** Epoch milliseconds; null: the key does not expire. */
  keyExpires: number | null;
  /** The tool's extra columns of the key (ApiKeyStoreOptions.extra). */
  extra: Record<string, unknown>;
}

/** A copy of recently used keys' owners, dropped when a key or its owner changes (memsvc's NotifiedCache). */
export interface KeyOwnerCache {
  get(hash: string): KeyOwnerRow | undefined;
  /** Taken before a read: a change announced meanwhile keeps the read's row out of the cache. */
  ticket(): number;
  set(hash: string, owner: KeyOwnerRow, userId: string, ticket: number): void;
}

export interface ApiKeyStoreOptions {
  /** What every key starts with ("nm_", "vault_"). */
  keyPrefix: string;
  table: ApiKeyTable;
  /** A new key's id, when the id is a column of its own; default: the id is the hash. */
  newId?: () => string;
  /** How many leading characters `table.prefix` keeps. Default 16. */
  shownPrefixLength?: number;
  /** The tool's own columns, set at creation and returned with each key and owner (the vault's scope). */
  extra?: readonly string[];
  /** Keys one user may hold; default: no limit. */
  maxPerUser?: number;
  /** At most one last-used write per key in this many milliseconds. Default 60 000. */
  lastUsedDebounceMs?: number;
  /** Where failed last-used writes are reported (at warn). Default silent. */
  log?: Logger;
  /** Clock in epoch milliseconds, for bans, expiry and debouncing. Default Date.now. */
  now?: () => number;
  cache?: KeyOwnerCache;
  /** Called after a key was deleted or replaced, e.g. to tell other replicas' caches. */
  onRemoved?: (hash: string) => void;
}

/** A key as its owner sees it listed: never the secret. */
export interface StoredKey {
  id: string;
  hash: string;
  label: string;
  /** The shown prefix, when the table keeps one. */
  prefix?: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  extra: Record<string, unknown>;
}

/** What a presented key stands for. */
export interface KeyOwner {
  userId: string;
  email: string;
  role: Role;
  hash: string;
  extra: Record<string, unknown>;
}

export class ApiKeyStore {
  // deno-lint-ignore no-explicit-any
  readonly #db: Kysely<any>;
  readonly #o: ApiKeyStoreOptions;
  readonly #t: ApiKeyTable;
  readonly #log: Logger;
  readonly #now: () => number;
  /** hash -> when its last-used time was last written, oldest first. */
  readonly #lastWritten = new Map<string, number>();
  readonly #pendingWrites = new Set<Promise<void>>();

  constructor(db: object, options: ApiKeyStoreOptions) {
    // deno-lint-ignore no-explicit-any
    this.#db = db as Kysely<any>;
    this.#o = options;
    this.#t = options.table;
    this.#log = options.log ?? silentLogger;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Makes a key for the user: the secret, returned this once, and its stored form. With maxPerUser, a
   * user at the limit gets a ValidationError (`tooMany` words it).
   */
  async create(
    userId: string,
    label: string,
    options: { expiresAt?: Date | null; values?: Record<string, unknown>; tooMany?: string } = {},
  ): Promise<{ key: string; stored: StoredKey }> {
    const key = generateApiKey(this.#o.keyPrefix);
    const row = this.#row(userId, label, key, options);
    const stored = this.#o.maxPerUser === undefined
      ? await this.#insert(this.#db, row)
      : await this.#db.transaction().execute(async (trx) => {
        await this.#checkLimit(trx, userId, options.tooMany);
        return await this.#insert(trx, row);
      });
    return { key, stored };
  }

  /** The user's keys, newest first. */
  async list(userId: string): Promise<StoredKey[]> {
    const t = this.#t;
    const rows = await this.#db.selectFrom(t.name).select(this.#listed()).where(t.userId, "=", userId)
      .orderBy(t.createdAt, "desc").orderBy(t.id).execute();
    return rows.map((row) => this.#stored(row));
  }

  /** Deletes one of the user's own keys by id; false when the user has no such key. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const t = this.#t;
    const row = await this.#db.deleteFrom(t.name).where(t.id, "=", id).where(t.userId, "=", userId)
      .returning(t.hash).executeTakeFirst();
    if (row) this.#o.onRemoved?.(row[t.hash]);
    return row !== undefined;
  }

  /** Deletes the key whose secret is given, whoever owns it; undefined when unknown. */
  async revokeSecret(key: string): Promise<{ userId: string; hash: string } | undefined> {
    const t = this.#t;
    const hash = hashApiKey(key);
    const row = await this.#db.deleteFrom(t.name).where(t.hash, "=", hash).returning(t.userId)
      .executeTakeFirst();
    if (row) this.#o.onRemoved?.(hash);
    return row && { userId: row[t.userId], hash };
  }

  /**
   * Replaces a key with a new one of the same owner, label and extra columns, in one transaction: the
   * old key stops working exactly when the new one exists. Undefined when the old one is gone.
   */
  async rotate(id: string): Promise<{ key: string; stored: StoredKey } | undefined> {
    const t = this.#t;
    const key = generateApiKey(this.#o.keyPrefix);
    const rotated = await this.#db.transaction().execute(async (trx) => {
      const old = await trx.deleteFrom(t.name).where(t.id, "=", id)
        .returning([t.hash, t.userId, t.label, ...(t.expiresAt ? [t.expiresAt] : []), ...this.#extra()])
        .executeTakeFirst();
      if (!old) return undefined;
      const values = Object.fromEntries(this.#extra().map((c) => [c, old[c]]));
      const row = this.#row(old[t.userId], old[t.label], key, {
        expiresAt: t.expiresAt ? old[t.expiresAt] : undefined,
        values,
      });
      return { oldHash: old[t.hash] as string, stored: await this.#insert(trx, row) };
    });
    if (!rotated) return undefined;
    this.#o.onRemoved?.(rotated.oldHash);
    return { key, stored: rotated.stored };
  }

  /**
   * The owner of a presented key, or undefined for an unknown, revoked or expired key or a banned
   * owner. Records the use without making the request wait for it.
   */
  async resolve(key: string): Promise<KeyOwner | undefined> {
    const hash = hashApiKey(key);
    const owner = this.#o.cache?.get(hash) ?? await this.#readOwner(hash);
    if (!owner) return undefined;
    const now = this.#now();
    if (owner.banned && (owner.banExpires === null || owner.banExpires > now)) return undefined;
    if (owner.keyExpires !== null && owner.keyExpires <= now) return undefined;
    this.#recordUse(hash, now);
    return { userId: owner.userId, email: owner.email, role: owner.role, hash, extra: owner.extra };
  }

  /** Resolves when every last-used write started so far has finished; call before closing the database. */
  async drain(): Promise<void> {
    await Promise.all(this.#pendingWrites);
  }

  async #readOwner(hash: string): Promise<KeyOwnerRow | undefined> {
    const t = this.#t;
    const ticket = this.#o.cache?.ticket() ?? 0;
    const row = await this.#db.selectFrom(`${t.name} as k`)
      .innerJoin("user", "user.id", `k.${t.userId}`)
      .select([
        "user.id",
        "user.email",
        "user.role",
        "user.banned",
        "user.banExpires",
        ...(t.expiresAt ? [`k.${t.expiresAt} as keyExpires`] : []),
        ...this.#extra().map((c) => `k.${c}`),
      ])
      .where(`k.${t.hash}`, "=", hash)
      .executeTakeFirst();
    if (!row) return undefined;
    const owner: KeyOwnerRow = {
      userId: row.id,
      email: row.email,
      role: row.role === "admin" ? "admin" : "user",
      banned: !!row.banned,
      banExpires: row.banExpires ? new Date(row.banExpires).getTime() : null,
      keyExpires: row.keyExpires ? new Date(row.keyExpires).getTime() : null,
      extra: Object.fromEntries(this.#extra().map((c) => [c, row[c]])),
    };
    this.#o.cache?.set(hash, owner, owner.userId, ticket);
    return owner;
  }

  /**
   * Writes the last use at most once per debounce window per key, in the background: a busy agent
   * would otherwise turn every read into a write, and a failed write must not fail its request.
   */
  #recordUse(hash: string, now: number): void {
    const last = this.#lastWritten.get(hash);
    if (last !== undefined && now - last < (this.#o.lastUsedDebounceMs ?? 60_000)) return;
    this.#lastWritten.delete(hash);
    this.#lastWritten.set(hash, now);
    if (this.#lastWritten.size > MAX_TRACKED_KEYS) {
      this.#lastWritten.delete(this.#lastWritten.keys().next().value!);
    }
    const t = this.#t;
    // Marked: it writes no row a search keeps a copy of, so those copies stay (internal/db/write_count.ts).
    const update = this.#db.updateTable(t.name).set({ [t.lastUsedAt]: new Date(now) }).where(
      t.hash,
      "=",
      hash,
    );
    const write = this.#db.executeQuery(keepingCopies(update.compile()))
      .then(
        () => {},
        (err) => this.#log.warn("could not record API token use", { err, tokenHash: hash }),
      )
      .finally(() => this.#pendingWrites.delete(write));
    this.#pendingWrites.add(write);
  }

  /** Locks the owner's row, so concurrent creates count true, and refuses a user at the limit. */
  // deno-lint-ignore no-explicit-any
  async #checkLimit(trx: Kysely<any>, userId: string, tooMany: string | undefined): Promise<void> {
    const max = this.#o.maxPerUser!;
    await trx.selectFrom("user").select("id").where("id", "=", userId).forUpdate()
      .executeTakeFirstOrThrow(() => new Error(`no user with id ${userId}`));
    const { count } = await trx.selectFrom(this.#t.name)
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where(this.#t.userId, "=", userId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= max) {
      throw new ValidationError([{
        path: [],
        message: tooMany ?? `a user may hold at most ${max} API keys; delete one first`,
        code: "too_many_tokens",
      }]);
    }
  }

  #row(
    userId: string,
    label: string,
    key: string,
    options: { expiresAt?: Date | null; values?: Record<string, unknown> },
  ): Record<string, unknown> {
    const t = this.#t;
    const hash = hashApiKey(key);
    return {
      ...(this.#o.newId && { [t.id]: this.#o.newId() }),
      [t.userId]: userId,
      [t.label]: label,
      ...(t.prefix && { [t.prefix]: key.slice(0, this.#o.shownPrefixLength ?? 16) }),
      [t.hash]: hash,
      ...options.values,
      ...(t.expiresAt && { [t.expiresAt]: options.expiresAt ?? null }),
    };
  }

  // deno-lint-ignore no-explicit-any
  async #insert(db: Kysely<any>, row: Record<string, unknown>): Promise<StoredKey> {
    const inserted = await db.insertInto(this.#t.name).values(row).returning(this.#listed())
      .executeTakeFirstOrThrow();
    return this.#stored(inserted);
  }

  #extra(): readonly string[] {
    return this.#o.extra ?? [];
  }

  /** The columns a listed key is read from, under the names `#stored` reads. */
  #listed(): string[] {
    const t = this.#t;
    return [
      `${t.id} as id`,
      ...(t.id === t.hash ? [] : [`${t.hash} as hash`]),
      `${t.label} as label`,
      ...(t.prefix ? [`${t.prefix} as prefix`] : []),
      `${t.createdAt} as createdAt`,
      ...(t.expiresAt ? [`${t.expiresAt} as expiresAt`] : []),
      `${t.lastUsedAt} as lastUsedAt`,
      ...this.#extra(),
    ];
  }

  // deno-lint-ignore no-explicit-any
  #stored(row: any): StoredKey {
    return {
      id: row.id,
      hash: row.hash ?? row.id,
      label: row.label,
      ...(row.prefix !== undefined && { prefix: row.prefix }),
      createdAt: row.createdAt,
      expiresAt: row.expiresAt ?? null,
      lastUsedAt: row.lastUsedAt ?? null,
      extra: Object.fromEntries(this.#extra().map((c) => [c, row[c]])),
    };
  }
}
