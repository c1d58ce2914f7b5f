/**
 * Float vectors of recent rescoring candidates, kept in process on the embedded database, so a search
 * whose candidates were rescored before reads none of them back (a read of ~30 vectors was the largest
 * statement of a search at 1,000 entries: about 3 ms of CPU on PGlite's one thread).
 *
 * The copies hold while both change marks (change_marks.ts) stand still: a stored vector changes only
 * with a new memory_vectors_seq number (stored or stored again), and leaves only with its entry (whose
 * deletion takes a memory_change_seq number) or with another embedder's model (never read here). Any
 * move of either mark drops every copy. Only on PGlite: there a mark read runs between statements of
 * the one session, so every number it reports has committed; on PostgreSQL a number taken by a
 * transaction still in flight could commit after the read, unseen, so there every candidate is read.
 *
 * @example
 * const copies = new VectorCopies(db, embedder.id);
 * const exact = await copies.rescore(query, candidates, marks); // best first, like VectorIndex.rescore
 */
import type { Kysely } from "kysely";
import { writeCount } from "../../../internal/db/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import type { ChangeMarks } from "./change_marks.ts";
import type { Neighbor } from "./packed_vectors.ts";
import { exactlyRanked, readStoredVectors } from "./vector_index.ts";

/** Copies kept at most: 4,096 × 2 KB (the built-in embedder's 512 floats) is about 8 MB. */
export const MAX_VECTOR_COPIES = 4_096;

export class VectorCopies {
  readonly #copies = new Map<string, Float32Array>();
  /** The marks the copies were read under. */
  #key = "";
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

  /**
   * The exact cosines of `candidates` from their stored vectors, best first; candidates whose vector
   * is gone are dropped. `marks`: read before any of this search's reads; undefined reads every vector
   * and keeps none (vectors of earlier remembers were still being stored when they were read).
   */
  async rescore(
    query: Float32Array,
    candidates: Neighbor[],
    marks: ChangeMarks | undefined,
  ): Promise<Neighbor[]> {
    if (candidates.length === 0) return [];
    const keep = marks !== undefined && writeCount(this.db) !== undefined;
    const key = keep ? `${marks.entries}|${marks.vectors}` : "";
    if (key !== this.#key) {
      this.#copies.clear();
      this.#key = key;
    }
    const vectors = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const c of candidates) {
      const copy = keep ? this.#copies.get(c.id) : undefined;
      if (copy) vectors.set(c.id, copy);
      else missing.push(c.id);
    }
    this.counts.copied += vectors.size;
    this.counts.read += missing.length;
    if (missing.length) {
      const read = await readStoredVectors(this.db, this.model, missing);
      for (const [id, v] of read) vectors.set(id, v);
      // Kept only if the marks did not move meanwhile (another search may have seen them move).
      if (keep && this.#key === key) { for (const [id, v] of read) this.#remember(id, v); }
    }
    return exactlyRanked(query, candidates, vectors);
  }

  #remember(id: string, vector: Float32Array) {
    this.#copies.delete(id);
    this.#copies.set(id, vector);
    if (this.#copies.size > this.max) this.#copies.delete(this.#copies.keys().next().value!);
  }
}
