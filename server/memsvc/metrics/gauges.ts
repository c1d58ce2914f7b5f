/**
 * Gauges, read on demand. Session counts and the vector index size are in memory and free to read.
 * Row counts need the database, so they are counted by one statement at most once per 30 s and
 * cached: a dashboard polling every few seconds must not run COUNT(*) on every poll. Exact counts
 * rather than pg_class.reltuples, because PGlite runs no autovacuum, so its estimates go stale.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { MemsvcDatabase } from "../store/db.ts";

export const GAUGE_TTL_MS = 30_000;

export interface RowCounts {
  entries: number;
  edges: number;
  /** Entries without a vector from the current embedder: the gauge to alert on. */
  pendingEmbeddings: number;
  /** When these counts were taken. */
  countedAt: string;
}

export interface Gauges extends RowCounts {
  sseSessions: number;
  httpSessions: number;
  vectorIndexSize: number;
}

export interface GaugeSources {
  db: Kysely<MemsvcDatabase>;
  /** The current embedder's id; vectors of other embedders count as missing. */
  embedderId: string;
  sessions: { count(kind: "sse" | "http"): number };
  index: { readonly size: number };
}

export class GaugeReader {
  #cached: { counts: RowCounts; at: number } | undefined;
  #counting: Promise<RowCounts> | undefined;

  constructor(
    private readonly sources: GaugeSources,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = GAUGE_TTL_MS,
  ) {}

  async read(): Promise<Gauges> {
    const { sessions, index } = this.sources;
    return {
      ...await this.#rowCounts(),
      sseSessions: sessions.count("sse"),
      httpSessions: sessions.count("http"),
      vectorIndexSize: index.size,
    };
  }

  /** Cached counts while fresh; concurrent readers of stale counts share one statement. */
  #rowCounts(): Promise<RowCounts> {
    if (this.#cached && this.now() - this.#cached.at < this.ttlMs) {
      return Promise.resolve(this.#cached.counts);
    }
    return this.#counting ??= this.#count().then((counts) => {
      this.#cached = { counts, at: this.now() };
      return counts;
    }).finally(() => (this.#counting = undefined));
  }

  async #count(): Promise<RowCounts> {
    const { rows: [row] } = await sql<{ entries: string; edges: string; pending: string }>`
      select (select count(*) from memory_entries) as entries,
             (select count(*) from memory_edges) as edges,
             (select count(*) from memory_entries e where not exists (
                select 1 from memory_vectors v where v.entry_id = e.id and v.model = ${this.sources.embedderId}
             )) as pending`.execute(this.sources.db);
    return {
      entries: Number(row!.entries),
      edges: Number(row!.edges),
      pendingEmbeddings: Number(row!.pending),
      countedAt: new Date(this.now()).toISOString(),
    };
  }
}
