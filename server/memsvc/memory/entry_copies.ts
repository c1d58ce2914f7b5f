/**
 * Entry rows of recent search results and of this process's own remembers, kept in process on the
 * embedded database, so a search whose candidates were read or written before reads none of them
 * again (the result rows were a search's second largest statement at 1,000 entries: about 2 ms of
 * CPU on PGlite's one thread, and most of a fresh process's first searches after a load).
 *
 * A copy is kept only while no unmarked statement that may write has run since it was read
 * (internal/db/write_count.ts): any such write (an update, a delete, decay, a user removed, an
 * import) drops every copy, so a copy is always the row the database holds. Two kinds of write keep
 * them: this process's hit count writes, which return the columns they set and are applied to the
 * copies (`patched`), and statements marked KEEPS_COPIES, which add rows (the remember batch copies
 * the rows it inserted: `added`) or write nothing copied here (vectors, edges). On PostgreSQL (no
 * write count: other servers write) every row is read.
 *
 * @example
 * const copies = new EntryCopies(db);
 * const rows = await copies.read(["m_1", "m_2"]); // the rows that exist, from copies or the database
 */
import type { Kysely } from "kysely";
import { unmarkedWriteCount } from "../../../internal/db/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { ENTRY_COLUMNS, type EntryRow } from "./entry.ts";

/** An entry row as search reads it. */
export type EntryCopy = Omit<EntryRow, "capture_seq" | "change_seq">;

/** The columns a hit count write changes (hit_counts.ts). */
export type HitColumns = Pick<EntryCopy, "id" | "hit_count" | "last_accessed_at" | "cold">;

/** Rows kept at most (each about its content's size). */
export const MAX_ENTRY_COPIES = 2_048;

export class EntryCopies {
  readonly #copies = new Map<string, EntryCopy>();
  /** The write count the copies were read at. */
  #at = -1;
  /** Rows answered from a copy and read from the database, since the start (for tests). */
  readonly counts = { copied: 0, read: 0 };

  constructor(private readonly db: Kysely<MemsvcDatabase>, private readonly max = MAX_ENTRY_COPIES) {}

  get size(): number {
    return this.#copies.size;
  }

  /** The rows of those `ids` that exist, in no particular order. */
  async read(ids: readonly string[]): Promise<EntryCopy[]> {
    const count = unmarkedWriteCount(this.db);
    if (count !== this.#at) {
      this.#copies.clear();
      this.#at = count ?? -1;
    }
    const rows: EntryCopy[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const copy = count === undefined ? undefined : this.#copies.get(id);
      if (copy) rows.push(copy);
      else missing.push(id);
    }
    this.counts.copied += rows.length;
    this.counts.read += missing.length;
    if (missing.length === 0) return rows;
    const read = await this.db.selectFrom("memory_entries").select(ENTRY_COLUMNS)
      .where("id", "in", missing).execute();
    // Kept only if nothing that may write ran since the count was taken (before the read).
    if (count !== undefined && unmarkedWriteCount(this.db) === count && this.#at === count) {
      for (const row of read) this.#keep(row);
    }
    return rows.concat(read);
  }

  /**
   * Runs `write`, one statement that changes only the hit columns of the rows it returns
   * (hit_counts.ts), and applies those to the copies instead of dropping them: when it was the only
   * statement that may write since the copies were read, they stay what the database holds.
   */
  async patched<R extends HitColumns>(write: () => Promise<R[]>): Promise<R[]> {
    const before = unmarkedWriteCount(this.db);
    const rows = await write();
    if (before !== undefined && unmarkedWriteCount(this.db) === before + 1 && this.#at === before) {
      for (const r of rows) {
        const copy = this.#copies.get(r.id);
        if (copy) {
          this.#copies.set(r.id, {
            ...copy,
            hit_count: r.hit_count,
            last_accessed_at: r.last_accessed_at,
            cold: r.cold,
          });
        }
      }
      this.#at = before + 1;
    }
    return rows;
  }

  /** The count `added` compares with: take it before issuing the statement that adds the rows. */
  since(): number | undefined {
    return unmarkedWriteCount(this.db);
  }

  /**
   * Copies rows a KEEPS_COPIES statement just inserted, as it returned them, when no unmarked write
   * has run since `since` (one could have changed them). They are new ids: no copy or read in flight
   * holds another version of them.
   */
  added(rows: readonly EntryCopy[], since: number | undefined) {
    const count = unmarkedWriteCount(this.db);
    if (count === undefined || count !== since) return;
    if (this.#at !== count) {
      this.#copies.clear();
      this.#at = count;
    }
    for (const row of rows) this.#keep(row);
  }

  #keep(row: EntryCopy) {
    this.#copies.delete(row.id);
    this.#copies.set(row.id, row);
    if (this.#copies.size > this.max) this.#copies.delete(this.#copies.keys().next().value!);
  }
}
