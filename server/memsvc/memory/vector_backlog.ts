/**
 * Embedding and co_occurs linking, off the remember's critical path. A remember is acknowledged once
 * its entry row is committed; the entry's vector and its edges to its nearest neighbours are derived
 * from that row, so they can be built afterwards without risking an acknowledged write:
 *
 * - New entries are queued here and embedded in batches (one embedder call, one statement for the
 *   vectors and edges of many entries). A batch starts once BATCH entries wait, GATHER_MS after the
 *   first one came, or at once when a reader waits (`settled`): under a stream of writes each batch's
 *   fixed costs (the index catch-up, the statement) are shared by many entries instead of a few.
 * - After a crash, the entries that never got a vector are found again at the next start
 *   (`recover`: entries with no vector of the current embedder) and embedded then, as are a store's
 *   entries after a change of embedder.
 * - Readers that must see every earlier write's vector (the vector tier, the neighbour walk, the
 *   capture tool's near-duplicate check) await `settled()`, which waits only for work queued before
 *   the call, so a steady stream of writes cannot starve a reader.
 *
 * A vector is stored only while the entry still holds the content it was computed from (an update in
 * between writes its own vector) and edges only between entries that still exist.
 */
import { Buffer } from "node:buffer";
import { type Kysely, sql } from "kysely";
import { KEEPS_COPIES } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import { cosine, type Embedder, toBytes } from "../embeddings/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { LIMITS } from "./limits.ts";
import { TopK } from "./packed_vectors.ts";
import { PAUSE_IDLE_MS, type RequestPauses } from "./request_pauses.ts";
import { partitionKey } from "./scope.ts";
import type { VectorCopies } from "./vector_copies.ts";
import type { VectorIndex } from "./vector_index.ts";

/** Entries per embedder call and per statement. */
const BATCH = 128;
/** Longest a queued entry waits for company before its batch starts (unless a reader waits). */
const GATHER_MS = 200;
/** Rows per page of the start-up scan for entries without a vector. */
const RECOVER_PAGE = 1_000;
/**
 * With pauses: the longest each statement of the start-up scan waits for a pause between requests.
 * Short: entries it finds are still without a vector until it runs (vector search misses them).
 */
const RECOVER_WAIT_MS = 5_000;
/** The start-up scan's pause between batches, for requests and timers (see #scan). */
const YIELD_MS = 5;
/** How often the scan logs its progress. */
const PROGRESS_MS = 10_000;

export interface PendingVector {
  id: string;
  content: string;
  contentHash: string;
  partition: string;
}

export interface VectorBacklogDeps {
  db: Kysely<MemsvcDatabase>;
  embedder: Embedder;
  index: VectorIndex;
  log: Logger;
  /**
   * Pauses between requests (the embedded database): the start-up scan runs each statement in one
   * (its two counts read both tables: 440 ms of PGlite's thread at 100,000 entries).
   */
  pauses?: RequestPauses;
  /** Copies of stored vectors for search's rescoring (vector_copies.ts): each batch stored is handed over. */
  copies?: VectorCopies;
}

export class VectorBacklog {
  readonly #queue: PendingVector[] = [];
  /** Items ever queued, and items finished (stored, skipped or failed): `settled` compares them. */
  #queued = 0;
  #done = 0;
  readonly #waiters: { until: number; resolve(): void }[] = [];
  #draining: Promise<void> | undefined;
  #gathering: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  readonly #stopping = new AbortController();
  #recovering: Promise<void> | undefined;

  constructor(private readonly deps: VectorBacklogDeps) {}

  /** Entries queued and not yet stored. */
  get pending(): number {
    return this.#queued - this.#done;
  }

  add(items: PendingVector[]) {
    if (items.length === 0) return;
    this.#queue.push(...items);
    this.#queued += items.length;
    this.#schedule();
  }

  #schedule() {
    if (this.#draining || this.#stopped || this.#queue.length === 0) return;
    if (this.#queue.length >= BATCH || this.#waiters.length > 0) this.#startDrain();
    else this.#gathering ??= setTimeout(() => this.#startDrain(), GATHER_MS);
  }

  #startDrain() {
    clearTimeout(this.#gathering);
    this.#gathering = undefined;
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
      this.#schedule();
    });
  }

  /**
   * Resolves once everything queued before this call is stored or given up. Entries the start-up
   * scan finds count once it has queued them: a first search does not wait for the scan.
   */
  async settled(): Promise<void> {
    if (this.#done >= this.#queued) return;
    const until = this.#queued;
    const done = new Promise<void>((resolve) => this.#waiters.push({ until, resolve }));
    if (!this.#draining) this.#startDrain();
    await done;
  }

  /**
   * Embeds every entry that has no vector of the current embedder: left by a crash or by an embedder
   * that was down, or made by another embedder (MEMSVC_EMBEDDER changed, or a new default). Each new
   * vector replaces the entry's old one (one vector per entry); until then the vector tier simply does
   * not see the entry (it reads only the current embedder's vectors) and the keyword tier does.
   */
  recover(): Promise<void> {
    // In the background: a change of embedder can leave the whole store to embed, and neither the
    // start nor a shutdown waits for that (stop() ends it after the batch in progress).
    this.#recovering ??= this.#scan().catch((err) => {
      this.deps.log.warn("scan for entries without a vector failed; they stay keyword-only", { err });
    });
    return Promise.resolve();
  }

  /** Stops after the batch in progress; what is left is found again by the next start's scan. */
  async stop() {
    this.#stopped = true;
    this.#stopping.abort();
    clearTimeout(this.#gathering);
    this.#gathering = undefined;
    await this.#draining;
    await this.#recovering;
  }

  async #scan() {
    const { db, embedder, index, log } = this.deps;
    const pause = () => this.deps.pauses?.pause(PAUSE_IDLE_MS, RECOVER_WAIT_MS, this.#stopping.signal);
    const stopping = new Promise<void>((resolve) =>
      this.#stopping.signal.addEventListener("abort", () => resolve())
    );
    await pause();
    if (this.#stopped) return;
    // The index has read every stored vector of this embedder (the start's warm-up runs first): its size
    // against a count of entries says whether anything is missing without reading memory_vectors, whose
    // rows hold dense vectors inline (100,000 of builtin-static's are 205 MB of heap).
    const { rows: [counts] } = await sql<{ entries: string }>`select count(*)::text as entries
      from memory_entries`.execute(db);
    if (Number(counts?.entries ?? 0) - index.size <= 0) return;
    await pause();
    if (this.#stopped) return;
    const { rows: [exact] } = await sql<{ missing: string; other: string }>`select
      ((select count(*) from memory_entries) -
        (select count(*) from memory_vectors where model = ${embedder.id}))::text as missing,
      (select count(*) from memory_vectors where model <> ${embedder.id})::text as other`.execute(db);
    const missing = Number(exact?.missing ?? 0);
    if (missing <= 0) return;
    log.info("embedding entries without a vector of this embedder", {
      model: embedder.id,
      entries: missing,
      replacing: Number(exact?.other ?? 0),
    });
    let after = "";
    let found = 0;
    let reported = Date.now();
    for (;;) {
      await pause();
      if (this.#stopped) break;
      const rows = await db.selectFrom("memory_entries as e")
        .select(["e.id", "e.content", "e.content_hash", "e.user_id", "e.project_id", "e.namespace"])
        .where("e.id", ">", after)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("memory_vectors as v").select("v.entry_id").whereRef("v.entry_id", "=", "e.id")
                .where("v.model", "=", embedder.id),
            ),
          )
        )
        .orderBy("e.id")
        .limit(RECOVER_PAGE)
        .execute();
      // A batch at a time, each stored before the next is queued: readers (settled) wait for at most
      // one batch, and new writes go in between, however many entries a change of embedder left.
      for (let i = 0; i < rows.length && !this.#stopped; i += BATCH) {
        this.add(
          rows.slice(i, i + BATCH).map((r) => ({
            id: r.id,
            content: r.content,
            contentHash: r.content_hash,
            partition: partitionKey(r),
          })),
        );
        // (A batch queued behind one that stop() lets finish is never stored: do not wait for it then.)
        await Promise.race([this.settled(), stopping]);
        if (this.#stopped) break;
        // PGlite answers without real I/O, so a batch's statements resolve as microtasks: without a
        // turn of the event loop between batches no request (nor timer) ran until the whole scan was
        // done (minutes after a change of embedder at 100,000 entries).
        await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
        found += Math.min(BATCH, rows.length - i);
        if (Date.now() - reported >= PROGRESS_MS) {
          reported = Date.now();
          log.info("embedding entries without a vector of this embedder", { done: found, of: missing });
        }
      }
      if (rows.length < RECOVER_PAGE || this.#stopped) break;
      after = rows.at(-1)!.id;
    }
    if (found) log.info("entries embedded", { model: embedder.id, entries: found });
  }

  async #drain() {
    while (this.#queue.length > 0 && !this.#stopped) {
      const batch = this.#queue.splice(0, BATCH);
      try {
        await this.#store(batch);
      } catch (err) {
        this.deps.log.warn("storing vectors failed; the entries stay keyword-only until the next start", {
          entries: batch.length,
          err,
        });
      }
      this.#finish(batch.length);
      // A partial batch waits for company again, unless a reader is waiting.
      if (this.#queue.length < BATCH && this.#waiters.length === 0) break;
    }
  }

  #finish(n: number) {
    this.#done += n;
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i]!;
      if (this.#done >= w.until) {
        this.#waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  async #store(batch: PendingVector[]) {
    const { db, embedder, index } = this.deps;
    const [vectors] = await Promise.all([embedder.embed(batch.map((b) => b.content)), index.sync()]);
    // Columns as arrays (unnest): a handful of parameters per statement instead of three per row.
    const ids: string[] = [];
    const hashes: string[] = [];
    const encoded: string[] = [];
    const edges = { from: [] as string[], to: [] as string[], weight: [] as number[] };
    // The indexed entries' nearest for the whole batch in one pass (the index is not changed by it).
    const indexed = index.nearestMany(
      batch.map((item, i) => ({ vector: vectors[i]!, partition: item.partition, exclude: item.id })),
      LIMITS.coOccurNeighbors,
    );
    batch.forEach((item, i) => {
      const vector = vectors[i]!;
      ids.push(item.id);
      hashes.push(item.contentHash);
      // As base64 text: PGlite serialises a bytea parameter several times slower than decode() parses this.
      const bytes = toBytes(vector);
      encoded.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"));
      // Nearest among the indexed entries and the earlier ones of this batch, as if stored one by one.
      // (A top k rather than all of them sorted: it keeps the same ones, an earlier one first on a tie.)
      const near = new TopK(LIMITS.coOccurNeighbors);
      for (const n of indexed[i]!) near.offer(n.id, n.score);
      for (let j = 0; j < i; j++) {
        if (batch[j]!.partition !== item.partition || batch[j]!.id === item.id) continue;
        near.offer(batch[j]!.id, cosine(vector, vectors[j]!));
      }
      for (const n of near.items) {
        edges.from.push(item.id);
        edges.to.push(n.id);
        edges.weight.push(n.score);
      }
    });
    // One statement (one commit): the edges' insert reads the vectors' CTE so it runs after it. Vectors
    // only for entries that still hold this content (a deleted entry has no row to join, an updated
    // one got its own vector from the update); edges only between entries that exist.
    const storeVectors = sql`
      insert into memory_vectors (entry_id, model, vector)
      select e.id, ${embedder.id}, decode(n.vector, 'base64')
        from unnest(${ids}::text[], ${hashes}::text[], ${encoded}::text[]) as n(id, content_hash, vector)
        join memory_entries e on e.id = n.id and e.content_hash = n.content_hash
      on conflict (entry_id) do update
        set model = excluded.model, vector = excluded.vector, seq = nextval('memory_vectors_seq')
      returning entry_id, seq::text`;
    // Marked for the copies (embedded database) when they are handed what it stores: it changes no
    // entry row and no vector but those.
    const { copies } = this.deps;
    const since = copies?.since();
    const mark = sql.raw(since === undefined ? "" : KEEPS_COPIES);
    // `stored` joined memory_entries, so an edge's source exists; its target is checked here.
    const { rows: stored } = edges.from.length === 0
      ? await sql<{ entry_id: string; seq: string }>`${mark}${storeVectors}`.execute(db)
      : await sql<{ entry_id: string; seq: string }>`${mark}
      with stored as (${storeVectors}),
        linked as (
          insert into memory_edges (from_id, to_id, relation, weight)
          select s.entry_id, b.id, 'co_occurs', n.weight
            from unnest(${edges.from}::text[], ${edges.to}::text[], ${edges.weight}::real[]) as n(from_id, to_id, weight)
            join stored s on s.entry_id = n.from_id
            join memory_entries b on b.id = n.to_id
          on conflict do nothing)
      select entry_id, seq from stored`.execute(db);
    // Committed: the index takes these vectors as they are instead of reading them back.
    const byId = new Map(batch.map((item, i) => [item.id, i]));
    const held = stored.map((r) => {
      const i = byId.get(r.entry_id)!;
      return { id: r.entry_id, partition: batch[i]!.partition, vector: vectors[i]!, seq: BigInt(r.seq) };
    });
    index.hold(held);
    copies?.stored(held, since);
  }
}
