/**
 * Float vectors of recent rescoring candidates and of this process's newly stored ones, kept in
 * process on the embedded database, so a search whose candidates were rescored or stored before
 * reads none of them back (a read of ~30 vectors was the largest statement of a search at 1,000
 * entries: about 3 ms of CPU on PGlite's one thread).
 *
 * The copies hold while no unmarked statement that may write has run (internal/db/write_count.ts):
 * a stored vector changes or leaves only by a write, and the writes marked KEEPS_COPIES either touch
 * no vector (the remember batch's insert of new entries) or are the vector backlog's store, whose
 * vectors it hands over here after the commit (`stored`). Any other write (an update's new vector,
 * a delete, another embedder's vectors) drops every copy. On PostgreSQL (no write count: other
 * servers write) every candidate is read.
 *
 * @example
 * const copies = new VectorCopies(db, embedder.id);
 * const exact = await copies.rescore(query, candidates); // best first, like VectorIndex.rescore
 */
import type { Kysely } from "kysely";
import { unmarkedWriteCount } from "../../../internal/db/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { Neighbor } from "./packed_vectors.ts";
import { exactlyRanked, readStoredVectors } from "./vector_index.ts";

/** Copies kept at most: 4,096 × 2 KB (the built-in embedder's 512 floats) is about 8 MB. */
export const MAX_VECTOR_COPIES = 4_096;

export class VectorCopies {
  readonly #copies = new Map<string, Float32Array>();
  /** The unmarked write count the copies were read or stored under. */
  #at = -1;
  /** Hand-overs by `stored` so far: a read that began before one may hold an older vector. */
  #handovers = 0;
  /** Candidates rescored from a copy and read from the database, since the start (for tests and metrics). */
  readonly counts = { copied: 0, read: 0 };

  constructor(
    private readonly db: Kysely<MemsvcDatabase>,
    private readonly model: string,
    private readonly max = MAX_VECTOR_COPIES,
  ) {}

  get size(): number {
    return this.#copies.size;
  }

  /** The exact cosines of `candidates` from their stored vectors, best first; those without one are dropped. */
  async rescore(query: Float32Array, candidates: Neighbor[]): Promise<Neighbor[]> {
    if (candidates.length === 0) return [];
    const count = this.#current();
    const vectors = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const c of candidates) {
      const copy = count === undefined ? undefined : this.#copies.get(c.id);
      if (copy) vectors.set(c.id, copy);
      else missing.push(c.id);
    }
    this.counts.copied += vectors.size;
    this.counts.read += missing.length;
    if (missing.length) {
      const handovers = this.#handovers;
      const read = await readStoredVectors(this.db, this.model, missing);
      for (const [id, v] of read) vectors.set(id, v);
      // Kept only if nothing that may change a vector ran meanwhile.
      if (count !== undefined && this.#current() === count && this.#handovers === handovers) {
        for (const [id, v] of read) this.#remember(id, v);
      }
    }
    return exactlyRanked(query, candidates, vectors);
  }

  /** The count `stored` compares with: take it before issuing the backlog's store. */
  since(): number | undefined {
    return unmarkedWriteCount(this.db);
  }

  /**
   * Vectors the backlog's KEEPS_COPIES statement just stored and committed for this model (new, or
   * replacing an entry's vector), copied when no unmarked write has run since `since` (a delete or an
   * update could have followed them).
   */
  stored(rows: readonly { id: string; vector: Float32Array }[], since: number | undefined) {
    const count = this.#current();
    if (count === undefined || count !== since) return;
    this.#handovers++;
    // Copied: an embedder's vectors may be views into one batch buffer, which a copy must not pin.
    for (const r of rows) this.#remember(r.id, r.vector.slice());
  }

  /** The unmarked write count, with every copy dropped when it moved since they were taken. */
  #current(): number | undefined {
    const count = unmarkedWriteCount(this.db);
    if (count !== this.#at) {
      this.#copies.clear();
      this.#at = count ?? -1;
    }
    return count;
  }

  #remember(id: string, vector: Float32Array) {
    this.#copies.delete(id);
    this.#copies.set(id, vector);
    if (this.#copies.size > this.max) this.#copies.delete(this.#copies.keys().next().value!);
  }
}
