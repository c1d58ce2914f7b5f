/**
 * The vector tier's in-process index. Vectors live in memory_vectors (the source of truth, shared
 * by every process on the database); this cache holds them by partition for exact cosine search
 * and catches up before each use by reading only rows whose `seq` is past what it has seen, so
 * writes from other processes appear too. Deleted entries are not tracked here: callers confirm
 * candidates against memory_entries and drop the ones that are gone (forget() also evicts locally).
 *
 * A search reads every cached vector of its partitions, so the scan is bound by memory traffic, not
 * arithmetic: vectors that are mostly zeros (the built-in embedder's use about 30–200 of 512
 * dimensions) are kept as their non-zero components only, a fraction of the bytes, and scored
 * exactly against the dense query. Dense vectors (remote embedders) stay as they are.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { Embedder } from "../embeddings/mod.ts";
import { cosine, fromBytes } from "../embeddings/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { partitionKey } from "./scope.ts";

/** Rows per read; between reads the event loop serves requests (see #readNew). */
const BATCH = 2_000;
const YIELD_MS = 5;

/** A vector's non-zero components: `value[j]` sits at dimension `index[j]`. */
export interface SparseVector {
  readonly length: number;
  readonly index: Uint16Array;
  readonly value: Float32Array;
}

type Stored = Float32Array | SparseVector;

export interface Neighbor {
  id: string;
  score: number;
}

export class VectorIndex {
  readonly #byPartition = new Map<string, Map<string, Stored>>();
  readonly #partitionOf = new Map<string, string>();
  #seenSeq = 0n;
  #syncing: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly db: Kysely<MemsvcDatabase>, private readonly embedder: Embedder) {}

  get size(): number {
    return this.#partitionOf.size;
  }

  /** Ends a read in progress after its current batch (shutdown must not wait for a whole warm-up). */
  stop() {
    this.#stopped = true;
  }

  /** Reads vectors written since the last sync (by any process). Concurrent callers share one read. */
  sync(): Promise<void> {
    return this.#syncing ??= this.#readNew().finally(() => (this.#syncing = undefined));
  }

  async #readNew(): Promise<void> {
    for (;;) {
      // The batch of vectors first, then its entries by primary key: joining first let the planner
      // hash-join every entry for each batch (about a second per batch at 100k entries).
      const batch = this.db.selectFrom("memory_vectors")
        .select(["entry_id", "vector", "seq"])
        .where("model", "=", this.embedder.id)
        .where("seq", ">", sql<string>`${this.#seenSeq.toString()}::bigint`)
        .orderBy("seq")
        .limit(BATCH)
        .as("v");
      const rows = await this.db.selectFrom(batch)
        .innerJoin("memory_entries", "memory_entries.id", "v.entry_id")
        .select(["v.entry_id", "v.vector", "v.seq", "memory_entries.user_id", "memory_entries.project_id"])
        .select("memory_entries.namespace")
        .orderBy("v.seq")
        .execute();
      for (const row of rows) {
        this.#put(row.entry_id, partitionKey(row), compact(fromBytes(row.vector)));
        const seq = BigInt(row.seq);
        if (seq > this.#seenSeq) this.#seenSeq = seq;
      }
      if (rows.length < BATCH || this.#stopped) return;
      // PGlite answers without real I/O, so a loop of reads would never let the event loop serve
      // requests (health checks included) until all vectors are in. A request needs a few turns of
      // the loop (accept, read, answer): pause long enough between batches for them.
      await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    }
  }

  #put(id: string, partition: string, vector: Stored) {
    const previous = this.#partitionOf.get(id);
    if (previous && previous !== partition) this.#byPartition.get(previous)?.delete(id);
    let bucket = this.#byPartition.get(partition);
    if (!bucket) this.#byPartition.set(partition, bucket = new Map());
    bucket.set(id, vector);
    this.#partitionOf.set(id, partition);
  }

  /** Forgets entries (deleted here, or found gone by a caller). */
  evict(ids: Iterable<string>) {
    for (const id of ids) {
      const partition = this.#partitionOf.get(id);
      if (partition) this.#byPartition.get(partition)?.delete(id);
      this.#partitionOf.delete(id);
    }
  }

  /** The `k` most similar vectors among the partitions, best first, excluding `exclude`. */
  nearest(query: Float32Array, partitions: string[], k: number, exclude?: string): Neighbor[] {
    const top: Neighbor[] = [];
    for (const partition of partitions) {
      const bucket = this.#byPartition.get(partition);
      if (!bucket) continue;
      for (const [id, vector] of bucket) {
        if (id === exclude) continue;
        const score = vector instanceof Float32Array ? cosine(query, vector) : sparseDot(query, vector);
        if (top.length < k) {
          top.push({ id, score });
          if (top.length === k) top.sort((a, b) => b.score - a.score);
        } else if (score > top[k - 1]!.score) {
          top[k - 1] = { id, score };
          for (let i = k - 1; i > 0 && top[i]!.score > top[i - 1]!.score; i--) {
            [top[i], top[i - 1]] = [top[i - 1]!, top[i]!];
          }
        }
      }
    }
    return top.sort((a, b) => b.score - a.score);
  }

  /** Ids of every cached vector. */
  ids(): string[] {
    return [...this.#partitionOf.keys()];
  }

  vectorOf(id: string): Float32Array | undefined {
    const partition = this.#partitionOf.get(id);
    const stored = partition ? this.#byPartition.get(partition)?.get(id) : undefined;
    return stored && (stored instanceof Float32Array ? stored : dense(stored));
  }
}

/**
 * The vector as stored in the cache: sparse when at most half of its components are non-zero (6 bytes
 * a component instead of 4 a dimension: smaller, and fewer multiply-adds).
 */
export function compact(vector: Float32Array): Stored {
  let count = 0;
  for (const x of vector) if (x !== 0) count++;
  if (count * 2 > vector.length || vector.length > 0x10000) return vector;
  const index = new Uint16Array(count);
  const value = new Float32Array(count);
  for (let i = 0, j = 0; i < vector.length; i++) {
    if (vector[i] === 0) continue;
    index[j] = i;
    value[j++] = vector[i]!;
  }
  return { length: vector.length, index, value };
}

export function dense(vector: SparseVector): Float32Array {
  const out = new Float32Array(vector.length);
  for (let j = 0; j < vector.index.length; j++) out[vector.index[j]!] = vector.value[j]!;
  return out;
}

/** The dot product (cosine of normalised vectors) of a dense query and a sparse stored vector. */
export function sparseDot(query: Float32Array, vector: SparseVector): number {
  if (query.length !== vector.length) {
    throw new RangeError(`cosine: vectors of ${query.length} and ${vector.length} dimensions`);
  }
  const { index, value } = vector;
  let sum = 0;
  for (let j = 0; j < index.length; j++) sum += query[index[j]!]! * value[j]!;
  return sum;
}
