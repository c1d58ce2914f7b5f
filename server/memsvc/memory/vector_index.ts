/**
 * The vector tier's in-process index. Vectors live in memory_vectors (the source of truth, shared
 * by every process on the database); this cache holds them by partition, packed as int8
 * (packed_vectors.ts), and catches up before each use by reading only rows whose `seq` is past what
 * it has seen, so writes from other processes appear too; the vectors this process's backlog stores
 * are handed over after their commit (`hold`) instead of being read back. Deleted entries are not tracked here:
 * callers confirm candidates against memory_entries and drop the ones that are gone (forget() also
 * evicts locally).
 *
 * Scores from `nearest` are approximate; `rescore` recomputes the exact cosine of a few candidates
 * from their stored float vectors.
 *
 * Reading 100k vectors from the embedded database takes seconds, so the packed index is saved to a
 * snapshot file (vector_snapshot.ts) at shutdown and after a long read, and a start loads it and
 * reads only the rows written since. `reconcile` then drops entries deleted while it was not looking.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { sleep } from "../../../internal/async/sleep.ts";
import type { Embedder } from "../embeddings/mod.ts";
import { cosine, fromBytes } from "../embeddings/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { IdRows, IdSpace } from "./id_rows.ts";
import { type Neighbor, PackedVectors, TopK } from "./packed_vectors.ts";
import { PAUSE_IDLE_MS, type RequestPauses } from "./request_pauses.ts";
import type { DenseRows } from "./simd/int8_dots.ts";
import { partitionKey } from "./scope.ts";
import { type ReadSnapshot, readSnapshot, writeSnapshot } from "./vector_snapshot.ts";

export type { Neighbor };

/** Rows per read; between reads the event loop serves requests (see #readNew). */
const BATCH = 2_000;
const YIELD_MS = 5;
/** Stored ids per read of `reconcile`: 5,000 held PGlite's thread for 50–450 ms at 100,000 entries. */
const RECONCILE_PAGE = 1_000;
/** How long after it is called `reconcile` starts (see there). */
const RECONCILE_START_MS = 2_000;
/** With pauses: the longest a page of `reconcile` waits for a pause between requests. */
const RECONCILE_WAIT_MS = 60_000;

export class VectorIndex {
  readonly #byPartition = new Map<string, PackedVectors>();
  /** Partitions by their tag in #where (id_rows.ts). */
  #tagged: PackedVectors[] = [];
  /** Every id's partition and row: one table for all partitions. */
  #where = new IdSpace();
  #seenSeq = 0n;
  /** Seqs of vectors put in by `hold` past `#seenSeq`: the next read skips them, then moves past them. */
  readonly #held = new Set<bigint>();
  #syncing: Promise<void> | undefined;
  #stopped = false;
  /** Vectors read or evicted since the last snapshot. */
  #changes = 0;

  readonly #stopping = new AbortController();

  /**
   * `pauses` (the embedded database): `reconcile` reads each page in a pause between requests
   * (request_pauses.ts), so a restart's searches do not queue behind it.
   */
  constructor(
    private readonly db: Kysely<MemsvcDatabase>,
    private readonly embedder: Embedder,
    private readonly pauses?: RequestPauses,
  ) {}

  get size(): number {
    return this.#where.size;
  }

  /** Changes since the index was last saved or loaded. */
  get unsaved(): number {
    return this.#changes;
  }

  /** Ends a read in progress after its current batch (shutdown must not wait for a whole warm-up). */
  stop() {
    this.#stopped = true;
    this.#stopping.abort();
  }

  /**
   * Reads vectors written since the last sync (by any process). Concurrent callers share one read.
   * `mark` (change_marks.ts: the last value memory_vectors_seq handed out, read by the caller first)
   * skips the read when the index has seen it.
   */
  sync(mark?: bigint): Promise<void> {
    if (mark !== undefined && !this.#syncing && this.#seenSeq >= mark) return Promise.resolve();
    return this.#syncing ??= this.#readNew().finally(() => (this.#syncing = undefined));
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const held = [...this.#held];
      // The batch of vectors first, then its entries by primary key: joining first let the planner
      // hash-join every entry for each batch (about a second per batch at 100k entries).
      let batch = this.db.selectFrom("memory_vectors")
        .select(["entry_id", "vector", "seq"])
        .where("model", "=", this.embedder.id)
        .where("seq", ">", sql<string>`${this.#seenSeq.toString()}::bigint`);
      if (held.length) {
        batch = batch.where(sql<boolean>`seq <> all(${held.map(String)}::bigint[])`);
      }
      const rows = await this.db.selectFrom(
        batch
          .orderBy("seq")
          .limit(BATCH)
          .as("v"),
      )
        .innerJoin("memory_entries", "memory_entries.id", "v.entry_id")
        .select(["v.entry_id", "v.vector", "v.seq", "memory_entries.user_id", "memory_entries.project_id"])
        .select("memory_entries.namespace")
        .orderBy("v.seq")
        .execute();
      for (const row of rows) {
        this.#put(row.entry_id, partitionKey(row), fromBytes(row.vector));
        const seq = BigInt(row.seq);
        if (seq > this.#seenSeq) this.#seenSeq = seq;
      }
      this.#changes += rows.length;
      if (rows.length < BATCH) {
        // Caught up: the held vectors were committed before they were handed over, so no read needs them.
        for (const seq of held) {
          if (seq > this.#seenSeq) this.#seenSeq = seq;
          this.#held.delete(seq);
        }
      }
      if (rows.length < BATCH || this.#stopped) return;
      // PGlite answers without real I/O, so a loop of reads would never let the event loop serve
      // requests (health checks included) until all vectors are in. A request needs a few turns of
      // the loop (accept, read, answer): pause long enough between batches for them.
      await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    }
  }

  #put(id: string, partition: string, vector: Float32Array) {
    let bucket = this.#byPartition.get(partition);
    if (!bucket) {
      bucket = new PackedVectors(vector.length, new IdRows(this.#where, this.#tagged.length));
      this.#byPartition.set(partition, bucket);
      this.#tagged.push(bucket);
    }
    const previous = this.#partitionHolding(id);
    if (previous && previous !== bucket) previous.delete(id);
    bucket.put(id, vector);
  }

  #partitionHolding(id: string): PackedVectors | undefined {
    const tag = this.#where.partitionOf(id);
    return tag === undefined ? undefined : this.#tagged[tag];
  }

  /**
   * Vectors this process has just stored and committed (the backlog's batch), put in without reading
   * them back (PGlite parses a bytea column at about 0.3 ms per vector). One at or below what the
   * index has read is skipped: that read saw it, or a newer vector of the same entry. When the seqs
   * follow on from what was read the index moves past them at once; otherwise (another writer's seqs
   * in between, or gaps) the next read skips them and then moves past them.
   */
  hold(rows: { id: string; partition: string; vector: Float32Array; seq: bigint }[]) {
    const fresh = rows.filter((r) => r.seq > this.#seenSeq).sort((a, b) => (a.seq < b.seq ? -1 : 1));
    for (const r of fresh) this.#put(r.id, r.partition, r.vector);
    this.#changes += fresh.length;
    const follows = !this.#syncing && this.#held.size === 0 &&
      fresh.every((r, i) => r.seq === this.#seenSeq + BigInt(i + 1));
    if (follows) {
      if (fresh.length) this.#seenSeq = fresh.at(-1)!.seq;
    } else {
      for (const r of fresh) this.#held.add(r.seq);
    }
  }

  /** Forgets entries (deleted here, or found gone by a caller). */
  evict(ids: Iterable<string>) {
    for (const id of ids) {
      const partition = this.#partitionHolding(id);
      if (!partition) continue;
      partition.delete(id);
      this.#changes++;
    }
  }

  /** The `k` most similar vectors among the partitions (approximate cosine), best first, excluding `exclude`. */
  nearest(query: Float32Array, partitions: string[], k: number, exclude?: string): Neighbor[] {
    const top = new TopK(k);
    for (const partition of partitions) this.#byPartition.get(partition)?.scan(query, top, exclude);
    return top.items;
  }

  /**
   * `nearest` for many queries of one partition each (the backlog's batch): the same neighbours and
   * scores as one `nearest` per query, with a partition's rows read once for many of its queries.
   */
  nearestMany(
    queries: { vector: Float32Array; partition: string; exclude?: string }[],
    k: number,
  ): Neighbor[][] {
    const tops = queries.map(() => new TopK(k));
    const byPartition = Map.groupBy(queries.keys(), (j) => queries[j]!.partition);
    for (const [partition, js] of byPartition) {
      this.#byPartition.get(partition)?.scanMany(
        js.map((j) => queries[j]!.vector),
        js.map((j) => tops[j]!),
        js.map((j) => queries[j]!.exclude),
      );
    }
    return tops.map((top) => top.items);
  }

  /**
   * The exact cosines of `candidates` from their stored float vectors, best first; candidates whose
   * vector is gone are dropped.
   */
  async rescore(query: Float32Array, candidates: Neighbor[]): Promise<Neighbor[]> {
    if (candidates.length === 0) return [];
    const vectors = await readStoredVectors(this.db, this.embedder.id, candidates.map((c) => c.id));
    return exactlyRanked(query, candidates, vectors);
  }

  /** An entry's exact stored vector (of this embedder), read from the database. */
  async stored(id: string): Promise<Float32Array | undefined> {
    const row = await this.db.selectFrom("memory_vectors").select("vector")
      .where("entry_id", "=", id).where("model", "=", this.embedder.id).executeTakeFirst();
    return row && fromBytes(row.vector);
  }

  /** Ids of every cached vector. */
  ids(): string[] {
    return [...this.#where.ids()];
  }

  /** The cached (int8, dequantised) vector: within about 0.4 % of the stored one per component. */
  vectorOf(id: string): Float32Array | undefined {
    return this.#partitionHolding(id)?.vectorOf(id);
  }

  /**
   * Writes the index to `file` (atomically). `instance` is the database's instance id: a snapshot
   * is only ever loaded back on the database it was taken from.
   */
  async save(file: string, instance: string): Promise<void> {
    const changes = this.#changes;
    await writeSnapshot(file, {
      instance,
      model: this.embedder.id,
      seenSeq: this.#seenSeq.toString(),
      partitions: [...this.#byPartition].map(([key, packed]) => ({
        key,
        dim: packed.dim,
        layout: packed.layout(),
      })),
    });
    this.#changes -= changes;
  }

  /**
   * Loads a snapshot taken on this database with this embedder; false (and the index untouched)
   * when there is none, it is another's, or the database went back in time (a restore): then
   * `sync` reads everything.
   */
  async load(file: string, instance: string): Promise<boolean> {
    const snapshot = await readPartitions(file);
    if (!snapshot || snapshot.instance !== instance || snapshot.model !== this.embedder.id) return false;
    const { rows } = await sql<{ max: string | null }>`select max(seq)::text as max from memory_vectors`
      .execute(this.db);
    const seenSeq = BigInt(snapshot.seenSeq);
    if (BigInt(rows[0]?.max ?? "0") < seenSeq) return false;
    // Built before anything is replaced: a layout that does not fit leaves the index as it was.
    const where = new IdSpace();
    const partitions = snapshot.build((tag) => new IdRows(where, tag));
    this.#byPartition.clear();
    for (const { key, packed } of partitions) this.#byPartition.set(key, packed);
    this.#tagged = partitions.map((p) => p.packed);
    this.#where = where;
    this.#seenSeq = seenSeq;
    this.#held.clear();
    this.#changes = 0;
    return true;
  }

  /**
   * Evicts cached entries whose vector is no longer stored (deleted while this index was saved
   * away, or by another process). Reads the stored ids in pages, yielding between them (with pauses:
   * each in a pause between requests), and marks the cached ones it finds by their number in the
   * tier: no string per cached id and no sort of them (40–170 ms for 100,000). Ids cached after it
   * started are kept. Stopped early, it evicts nothing.
   */
  async reconcile(): Promise<number> {
    // A restart's first searches come right after listening, when this starts, and before any
    // request a pause is found at once.
    await sleep(RECONCILE_START_MS, this.#stopping.signal);
    let seen: Uint8Array | undefined;
    let clock = 0;
    let after = "";
    for (;;) {
      await this.pauses?.pause(PAUSE_IDLE_MS, RECONCILE_WAIT_MS, this.#stopping.signal);
      if (this.#stopped) return 0;
      if (!seen) {
        clock = this.#where.clock;
        seen = new Uint8Array(this.#where.limit);
      }
      const page = (await this.db.selectFrom("memory_vectors").select("entry_id")
        .where("entry_id", ">", after).orderBy("entry_id").limit(RECONCILE_PAGE).execute()).map((r) =>
          r.entry_id
        );
      for (const id of page) {
        const n = this.#where.numberOf(id);
        if (n !== undefined && n < seen.length) seen[n] = 1;
      }
      if (page.length < RECONCILE_PAGE) break;
      if (this.#stopped) return 0;
      after = page.at(-1)!;
      await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    }
    const gone = this.#where.unmarked(seen, clock);
    this.evict(gone);
    return gone.length;
  }
}

/**
 * A snapshot file's header, and `build` to make its partitions. Dense rows are read straight into
 * where the scan reads them (a partition's WebAssembly memory), not into a buffer copied from.
 */
export async function readPartitions(
  file: string,
): Promise<
  | (Omit<ReadSnapshot, "partitions"> & {
    /** The partitions (once), partition i's ids filed in `rows(i)`. */
    build(rows?: (i: number) => IdRows): { key: string; packed: PackedVectors }[];
  })
  | undefined
> {
  const dense: (DenseRows | undefined)[] = [];
  const snapshot = await readSnapshot(file, (i, dim, start, length) => {
    const place = PackedVectors.denseFor(dim, start, length);
    dense[i] = place?.rows;
    return place?.target;
  });
  if (!snapshot) return undefined;
  const { partitions, ...header } = snapshot;
  return {
    ...header,
    build: (rows) =>
      partitions.map((p, i) => ({
        key: p.key,
        packed: p.layout
          ? PackedVectors.fromLayout(p.dim, p.layout, dense[i], rows?.(i))
          : PackedVectors.from(p.dim, p.arrays!, rows?.(i)),
      })),
  };
}

/** The stored float vectors of `ids` under `model` (ids without one are absent). */
export async function readStoredVectors(
  db: Kysely<MemsvcDatabase>,
  model: string,
  ids: string[],
): Promise<Map<string, Float32Array>> {
  const rows = await db.selectFrom("memory_vectors").select(["entry_id", "vector"])
    .where("entry_id", "in", ids).where("model", "=", model).execute();
  return new Map(rows.map((r) => [r.entry_id, fromBytes(r.vector)]));
}

/** The candidates with a vector, by exact cosine with `query`, best first. */
export function exactlyRanked(
  query: Float32Array,
  candidates: Neighbor[],
  vectors: ReadonlyMap<string, Float32Array>,
): Neighbor[] {
  return candidates.flatMap((c) => {
    const v = vectors.get(c.id);
    return v ? [{ id: c.id, score: cosine(query, v) }] : [];
  }).sort((a, b) => b.score - a.score);
}
