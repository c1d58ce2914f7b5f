/**
 * A copy of database rows kept in process, dropped when a notice says they changed (cache_notices.ts).
 * The request path reads it instead of the database; correctness rests on three rules:
 *
 * - Nothing is kept while the notices are not heard (before listening starts), so a change can never
 *   go unnoticed; `listening()` (again, after a lost connection) drops everything.
 * - A read that overlapped an invalidation is not kept: `ticket()` before the read, `set(…, ticket)`
 *   after it, and the copy is dropped if anything was invalidated in between.
 * - Every copy is dropped `ttlMs` after it was read regardless: the bound on how long a change whose
 *   notice was lost (a listening connection down and not yet back) can go unseen.
 */
export interface NotifiedCacheOptions {
  /** Longest a copy is used (default 10 s). */
  ttlMs?: number;
  /** Copies kept at most; the oldest go first (default 10,000). */
  maxEntries?: number;
  /** Clock in epoch milliseconds (default Date.now). */
  now?: () => number;
}

interface Copy<V> {
  value: V;
  /** The user the copy belongs to: a notice about the user drops all of theirs. */
  owner: string;
  readAt: number;
}

export class NotifiedCache<V> {
  readonly #copies = new Map<string, Copy<V>>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  /** Moves on every invalidation: a read that started before a move is not kept. */
  #epoch = 0;
  #listening = false;

  constructor(options: NotifiedCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 10_000;
    this.#max = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#copies.size;
  }

  /** The copy, unless missing or older than the TTL. */
  get(key: string): V | undefined {
    const copy = this.#copies.get(key);
    if (!copy) return undefined;
    if (this.#now() - copy.readAt >= this.#ttlMs) {
      this.#copies.delete(key);
      return undefined;
    }
    return copy.value;
  }

  /** Take one before reading what will be passed to `set`. */
  ticket(): number {
    return this.#epoch;
  }

  /** Keeps a copy read after `ticket` was taken, unless an invalidation came in between. */
  set(key: string, value: V, owner: string, ticket: number): void {
    if (!this.#listening || ticket !== this.#epoch) return;
    this.#copies.delete(key);
    this.#copies.set(key, { value, owner, readAt: this.#now() });
    if (this.#copies.size > this.#max) this.#copies.delete(this.#copies.keys().next().value!);
  }

  delete(key: string): void {
    this.#epoch++;
    this.#copies.delete(key);
  }

  /** Drops every copy belonging to the user. */
  deleteOwner(owner: string): void {
    this.#epoch++;
    for (const [key, copy] of this.#copies) if (copy.owner === owner) this.#copies.delete(key);
  }

  clear(): void {
    this.#epoch++;
    this.#copies.clear();
  }

  /** Notices are heard from now on (again): whatever was kept before may have missed some. */
  listening(): void {
    this.clear();
    this.#listening = true;
  }
}
