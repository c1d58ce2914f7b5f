/**
 * Writes and reads of memory entries: remember (gate, dedupe, insert, embed, link), update in
 * place, forget, get, recent and the neighbour walk. Search lives in search.ts.
 */
import { type Insertable, type Kysely, type QueryCreator, sql, type Updateable } from "kysely";
import { HTTPException } from "hono/http-exception";
import { GroupCommit, KEEPS_COPIES } from "../../../internal/db/mod.ts";
import { ValidationError } from "../../../internal/http/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import { type Embedder, toBytes } from "../embeddings/mod.ts";
import type { ActivityRecorder } from "../metrics/activity.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import type { MemoryEntriesTable, MemsvcDatabase } from "../store/db.ts";
import { contentHash, ENTRY_COLUMNS, type MemoryEntry, newEntryId, toEntry } from "./entry.ts";
import { LIMITS } from "./limits.ts";
import type { NeighborsQuery, RecentQuery, RememberBody, UpdateBody } from "./schemas.ts";
import {
  accessibleEntry,
  inScope,
  partitionKey,
  type ProjectLookup,
  readScope,
  writeScope,
} from "./scope.ts";
import type { EntryCopies, EntryCopy } from "./entry_copies.ts";
import type { HitCounts } from "./hit_counts.ts";
import type { VectorBacklog } from "./vector_backlog.ts";
import type { VectorCopies } from "./vector_copies.ts";
import type { VectorIndex } from "./vector_index.ts";
import { rejectionReason } from "./worthiness_gate.ts";

export type RememberResult = { id: string; deduplicated?: true } | { id: null; rejected: string };

export interface MemoryDeps {
  db: Kysely<MemsvcDatabase>;
  embedder: Embedder;
  index: VectorIndex;
  projects: ProjectLookup;
  activity: ActivityRecorder;
  log: Logger;
  /** Counts writes by outcome, updates, forgets and failures. */
  metrics: MemsvcMetrics;
  /** Embeds and links new entries after their commit. */
  vectors: VectorBacklog;
  /** Remember batches in flight at once (group commit): 1 on PGlite, a few on PostgreSQL. */
  writeConcurrency?: number;
  /** Search hits not yet written (hit_counts.ts): reads of an entry add them to its hit_count. */
  hits?: HitCounts;
  /** Copies of entry rows search reads (entry_copies.ts): remembers add theirs. */
  entryCopies?: EntryCopies;
  /** Copies of stored vectors search rescores with (vector_copies.ts): the backlog adds its own. */
  vectorCopies?: VectorCopies;
}

const UNIQUE_VIOLATION = "23505";
/** The entry columns (ENTRY_COLUMNS) as a RETURNING list. */
const RETURNED_WHOLE = ENTRY_COLUMNS.map((c) => c.replace("memory_entries.", "")).join(", ");

/** A new entry row as a remember submits it to the group commit. */
type NewEntry = Insertable<MemoryEntriesTable> & {
  id: string;
  user_id: string;
  project_id: string | null;
  namespace: string;
  content: string;
  content_hash: string;
};

export class MemoryService {
  readonly #inserts: GroupCommit<NewEntry, { id: string; deduplicated: boolean }>;
  /** Remembers started and not yet submitted to the group commit. */
  #arriving = 0;

  constructor(private readonly deps: MemoryDeps) {
    this.#inserts = new GroupCommit((rows) => this.#insertBatch(rows), {
      concurrency: deps.writeConcurrency ?? 1,
      // Remembers still doing their reads join the next batch rather than each paying a commit.
      gather: { pending: () => this.#arriving, maxWaitMs: 2 },
      // Requests read in one turn of the event loop reach `submit` in it (nothing before it leaves
      // the turn when the caller's scope is cached): without a turn, the first would go alone.
      coalesce: true,
    });
  }

  async remember(caller: Caller, body: RememberBody): Promise<RememberResult> {
    let result: RememberResult;
    try {
      result = await this.#remember(caller, body);
    } catch (err) {
      this.deps.metrics.recordFailure("remember", err);
      throw err;
    }
    this.deps.metrics.recordRemember(
      result.id === null ? "rejected" : "deduplicated" in result ? "deduplicated" : "stored",
    );
    return result;
  }

  async #remember(caller: Caller, body: RememberBody): Promise<RememberResult> {
    let arriving = true;
    this.#arriving++;
    const arrived = () => {
      if (arriving) this.#arriving--;
      arriving = false;
    };
    let stored;
    try {
      const scope = await writeScope(this.deps.projects, caller, body);
      if (!body.force) {
        const rejected = rejectionReason(body.content);
        if (rejected) return { id: null, rejected };
      }
      const content = body.content.trim();
      const row: NewEntry = {
        id: newEntryId(),
        user_id: scope.userId,
        project_id: scope.projectId,
        namespace: scope.namespace,
        content,
        content_hash: await contentHash(content),
        metadata: body.metadata ?? {},
        source_type: body.source_type ?? null,
        captured_from: body.captured_from ?? null,
        confidence: body.confidence ?? 1,
        session_id: body.session_id ?? null,
      };
      arrived();
      stored = await this.#inserts.submit(row);
    } finally {
      arrived();
    }
    this.deps.activity.record(caller.userId, caller.tokenHash, "remember");
    return stored.deduplicated ? { id: stored.id, deduplicated: true } : { id: stored.id };
  }

  /**
   * One statement (so one commit) for every remember that arrived while the previous batch was being
   * written (group commit). Each caller is answered after that commit; vectors and links follow in
   * the backlog.
   */
  async #insertBatch(rows: NewEntry[]): Promise<{ id: string; deduplicated: boolean }[]> {
    const { db } = this.deps;
    const column = <K extends keyof NewEntry>(k: K) => rows.map((r) => r[k] ?? null);
    // Columns as arrays (unnest), so a batch is a few parameters rather than eleven per row: PGlite
    // describes and serialises each parameter in JavaScript. `with ordinality` keeps arrival order.
    // On the embedded database the rows come back whole and are copied for search (entry_copies.ts):
    // a fresh process's first searches otherwise read each result row once more. The mark tells the
    // copies this statement only adds rows.
    const copies = this.deps.entryCopies;
    const since = copies?.since();
    const whole = since !== undefined;
    const { rows: stored } = await sql<EntryCopy>`${sql.raw(whole ? KEEPS_COPIES : "")}
      insert into memory_entries (id, user_id, project_id, namespace, content, content_hash, metadata,
        source_type, captured_from, confidence, session_id, created_at, updated_at)
      select n.id, n.user_id, n.project_id, n.namespace, n.content, n.content_hash, n.metadata::jsonb,
          n.source_type, n.captured_from, n.confidence, n.session_id,
          -- clock_timestamp: rows of one batch keep their arrival order in created_at (now() is per statement).
          clock_timestamp(), clock_timestamp()
        from unnest(${column("id")}::text[], ${column("user_id")}::text[], ${column("project_id")}::text[],
          ${column("namespace")}::text[], ${column("content")}::text[], ${column("content_hash")}::text[],
          ${rows.map((r) => JSON.stringify(r.metadata ?? {}))}::text[], ${column("source_type")}::text[],
          ${column("captured_from")}::text[], ${column("confidence")}::real[], ${
      column("session_id")
    }::text[])
          with ordinality as n(id, user_id, project_id, namespace, content, content_hash, metadata,
            source_type, captured_from, confidence, session_id, ord)
        order by n.ord
      -- The dedupe index decides between identical writes, concurrent or in one batch: one row is created.
      on conflict do nothing
      returning ${whole ? sql.raw(RETURNED_WHOLE) : sql`id`}`.execute(db);
    if (whole) copies!.added(stored, since);
    const inserted = new Set(stored.map((r) => r.id));
    const results: { id: string; deduplicated: boolean }[] = [];
    for (const r of rows) {
      if (inserted.has(r.id)) {
        results.push({ id: r.id, deduplicated: false });
        continue;
      }
      // The row it collided with is committed: ON CONFLICT waited for its transaction if it was open.
      const existing = await db.selectFrom("memory_entries").select("id")
        .where("user_id", "=", r.user_id)
        // The dedupe index's own expression, so the lookup is one probe of it.
        .where(sql`coalesce(project_id, '')`, "=", r.project_id ?? "")
        .where("namespace", "=", r.namespace)
        .where("content_hash", "=", r.content_hash)
        .executeTakeFirstOrThrow();
      results.push({ id: existing.id, deduplicated: true });
    }
    this.deps.vectors.add(
      rows.filter((_, i) => !results[i]!.deduplicated).map((r) => ({
        id: r.id,
        content: r.content,
        contentHash: r.content_hash,
        partition: partitionKey(r),
      })),
    );
    return results;
  }

  /** The entry's vector; undefined (logged) when the embedder fails: the entry stays, found by keyword. */
  async #embed(id: string, content: string): Promise<Float32Array | undefined> {
    try {
      return (await this.deps.embedder.embed([content]))[0];
    } catch (err) {
      this.deps.log.warn("embedding failed; the entry is stored without a vector", { id, err });
      return undefined;
    }
  }

  /** Inserts or replaces an entry's vector; a replaced one moves to the end of the sequence. */
  #upsertVector(db: QueryCreator<MemsvcDatabase>, id: string, vector: Float32Array) {
    return db.insertInto("memory_vectors")
      .values({ entry_id: id, model: this.deps.embedder.id, vector: toBytes(vector) })
      .onConflict((oc) =>
        oc.column("entry_id").doUpdateSet((eb) => ({
          model: eb.ref("excluded.model"),
          vector: eb.ref("excluded.vector"),
          seq: eb.fn("nextval", [eb.val("memory_vectors_seq")]),
        }))
      );
  }

  async get(caller: Caller, id: string): Promise<MemoryEntry> {
    return this.#entry(await accessibleEntry(this.deps.db, this.deps.projects, caller, id));
  }

  /** An entry as returned, with the search hits counted and not yet written. */
  #entry(row: Parameters<typeof toEntry>[0]): MemoryEntry {
    const entry = toEntry(row);
    const pending = this.deps.hits?.pending(entry.id) ?? 0;
    return pending ? { ...entry, hit_count: entry.hit_count + pending } : entry;
  }

  /**
   * Rewrites an entry in place: id, hit count, edges and creation time stay. A content change
   * refreshes hash, text index (a generated column) and vector; anything else never calls the embedder.
   */
  async update(caller: Caller, id: string, body: UpdateBody): Promise<MemoryEntry> {
    const { db } = this.deps;
    const entry = await accessibleEntry(db, this.deps.projects, caller, id);
    const patch: Updateable<MemoryEntriesTable> = { updated_at: new Date() };
    let newContent: string | undefined;
    if (body.content !== undefined) {
      const rejected = body.force ? undefined : rejectionReason(body.content);
      if (rejected) throw new ValidationError([{ path: ["content"], message: rejected, code: "rejected" }]);
      newContent = body.content.trim();
      patch.content = newContent;
      patch.content_hash = await contentHash(newContent);
    }
    if (body.metadata !== undefined) patch.metadata = body.metadata;
    if (body.source_type !== undefined) patch.source_type = body.source_type;
    if (body.captured_from !== undefined) patch.captured_from = body.captured_from;
    if (body.confidence !== undefined) patch.confidence = body.confidence;
    if (body.session_id !== undefined) patch.session_id = body.session_id;
    let row;
    try {
      row = await db.updateTable("memory_entries").set(patch).where("id", "=", entry.id)
        .returning(ENTRY_COLUMNS).executeTakeFirst();
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new HTTPException(409, { message: "another entry in this scope already has this content" });
      }
      throw err;
    }
    if (!row) throw new HTTPException(404, { message: "no such memory" });
    if (newContent !== undefined && newContent !== entry.content) {
      const vector = await this.#embed(entry.id, newContent);
      if (vector) await this.#upsertVector(db, entry.id, vector).execute();
    }
    this.deps.activity.record(caller.userId, caller.tokenHash, "update");
    this.deps.metrics.count("updates");
    return this.#entry(row);
  }

  async forget(caller: Caller, id: string): Promise<{ deleted: true }> {
    const { db } = this.deps;
    const entry = await accessibleEntry(db, this.deps.projects, caller, id);
    // Edges and the vector go with the entry (ON DELETE CASCADE).
    await db.deleteFrom("memory_entries").where("id", "=", entry.id).execute();
    this.deps.index.evict([entry.id]);
    this.deps.activity.record(caller.userId, caller.tokenHash, "forget");
    this.deps.metrics.count("forgets");
    return { deleted: true };
  }

  /** Newest first, in pages: `nextCursor` continues where this page stopped. */
  async recent(caller: Caller, query: RecentQuery) {
    const scope = await readScope(this.deps.projects, caller, query);
    const limit = query.limit ?? LIMITS.defaultRecentLimit;
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    let q = this.deps.db.selectFrom("memory_entries").select(ENTRY_COLUMNS).where(inScope(scope));
    if (query.source_type) q = q.where("source_type", "=", query.source_type);
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb("created_at", "<", after.at),
          eb.and([eb("created_at", "=", after.at), eb("id", "<", after.id)]),
        ])
      );
    }
    const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    this.deps.activity.record(caller.userId, caller.tokenHash, "recent");
    return {
      entries: page.map((r) => this.#entry(r)),
      nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }

  /**
   * The graph around an entry, breadth first to `depth` hops over edges in either direction,
   * strongest edges first, at most `neighborFanout` per node and `maxNeighborNodes` in all, and
   * only through entries the caller may read.
   */
  async neighbors(caller: Caller, id: string, query: NeighborsQuery) {
    const { db, projects } = this.deps;
    const root = await accessibleEntry(db, projects, caller, id);
    // co_occurs edges of earlier writes are built after their commit: wait for them.
    await this.deps.vectors.settled();
    const scope = await readScope(projects, caller, query);
    if (root.project_id && !scope.projectIds.includes(root.project_id)) {
      scope.projectIds.push(root.project_id);
    }
    if (!scope.namespaces.includes(root.namespace)) scope.namespaces.push(root.namespace);

    const depthOf = new Map<string, number>([[root.id, 0]]);
    const edges = new Map<string, { from: string; to: string; relation: string; weight: number }>();
    let frontier = [root.id];
    for (let depth = 1; depth <= query.depth && frontier.length; depth++) {
      const found = await db.selectFrom("memory_edges").select(["from_id", "to_id", "relation", "weight"])
        .where((eb) => eb.or([eb("from_id", "in", frontier), eb("to_id", "in", frontier)]))
        .orderBy("weight", "desc")
        .execute();
      const perNode = new Map<string, number>();
      const candidates: string[] = [];
      const kept: typeof found = [];
      for (const e of found) {
        const at = frontier.includes(e.from_id) ? e.from_id : e.to_id;
        const used = perNode.get(at) ?? 0;
        if (used >= LIMITS.neighborFanout) continue;
        perNode.set(at, used + 1);
        kept.push(e);
        const other = at === e.from_id ? e.to_id : e.from_id;
        if (!depthOf.has(other)) candidates.push(other);
      }
      const readable = candidates.length
        ? new Set(
          (await db.selectFrom("memory_entries").select("id").where("id", "in", [...new Set(candidates)])
            .where(inScope(scope)).execute()).map((r) => r.id),
        )
        : new Set<string>();
      const next: string[] = [];
      for (const e of kept) {
        const other = frontier.includes(e.from_id) ? e.to_id : e.from_id;
        if (!depthOf.has(other)) {
          if (!readable.has(other) || depthOf.size >= LIMITS.maxNeighborNodes) continue;
          depthOf.set(other, depth);
          next.push(other);
        }
        edges.set(`${e.from_id}|${e.to_id}|${e.relation}`, {
          from: e.from_id,
          to: e.to_id,
          relation: e.relation,
          weight: e.weight,
        });
      }
      frontier = next;
    }
    const rows = await db.selectFrom("memory_entries").select(ENTRY_COLUMNS).where("id", "in", [
      ...depthOf.keys(),
    ])
      .execute();
    this.deps.activity.record(caller.userId, caller.tokenHash, "neighbors");
    return {
      root: root.id,
      depth: query.depth,
      nodes: rows.map((r) => ({ ...this.#entry(r), depth: depthOf.get(r.id)! }))
        .sort((a, b) => a.depth - b.depth || a.id.localeCompare(b.id)),
      edges: [...edges.values()].filter((e) => depthOf.has(e.from) && depthOf.has(e.to)),
    };
  }
}

function encodeCursor(at: Date, id: string): string {
  return btoa(`${at.toISOString()}|${id}`).replace(/=+$/, "");
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [iso, id] = atob(cursor).split("|");
    const at = new Date(iso!);
    if (!id || Number.isNaN(at.getTime())) throw new Error("bad cursor");
    return { at, id };
  } catch {
    throw new ValidationError([{
      path: ["cursor"],
      message: "cursor is not one this server returned",
      code: "custom",
    }]);
  }
}
