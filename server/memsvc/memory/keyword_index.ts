/**
 * The keyword tier's index: memory entries in internal/fulltext indexes (BM25F, MaxScore top-k), one
 * per partition (user or project, and namespace), built from the database on first use and caught up
 * before every search from `change_seq` (inserts and indexed changes) and `memory_deletions`
 * (deletes, cascades included), so writes of any process appear and a crash loses nothing: the
 * database is the source of truth, the index is rebuilt.
 *
 * Conversations: an entry with a session is indexed with the text of its neighbouring turns (same
 * user, scope and session, capture order) as a half-weight `context` field, and at search time a hit
 * lends part of its score to its neighbours, so a turn that answers without repeating the question's
 * words ("Wandering Heron, after my grandmother's village.") is found through the turn before it.
 *
 * Catch-up reads rows past the highest sequence value seen. A transaction can commit a lower value
 * after a higher one was read, so values missing below the highest (gaps) are re-read for GAP_MS;
 * gaps that never fill are values of rows updated again, deleted, or of rolled-back writes.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { FullTextIndex, type Hit, type ParsedQuery } from "../../../internal/fulltext/mod.ts";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";
import { partitionKey } from "./scope.ts";

/** Field weights: the entry's own words, its neighbours' words, its metadata and source type. */
const FIELDS = {
  content: { weight: 1, phrases: true },
  context: { weight: 0.5, excludable: false },
  tags: { weight: 0.3 },
};
/** Turns on each side whose text is indexed with an entry. */
export const EXPANSION_RADIUS = 2;
/** Share of a hit's score its session neighbours receive. */
export const NEIGHBOUR_LEND = 0.3;
const BATCH = 2_000;
const GAP_MS = 3_000;
/** Gaps further than this below the highest value seen are not waited for. */
const GAP_WINDOW = 1_000;
const YIELD_MS = 5;

interface Meta {
  partition: string;
  cold: boolean;
  /** Conversation key (partition, user, session) or null. */
  session: string | null;
  capture: number;
  change: number;
}

interface Text {
  content: string;
  tags: string;
}

export class KeywordIndex {
  /**
   * One index per partition (user or project, and namespace): a search reads only its scope's
   * postings, so other users' matching rows cost it nothing, and term statistics are the scope's own.
   */
  readonly #indexes = new Map<string, FullTextIndex<Meta>>();
  readonly #meta = new Map<string, Meta>();
  readonly #text = new Map<string, Text>();
  /** Ids of each conversation in capture order. */
  readonly #sessions = new Map<string, { id: string; capture: number }[]>();
  #seen = 0;
  readonly #gaps = new Map<number, number>();
  #syncing: Promise<void> | undefined;

  constructor(private readonly db: Kysely<MemsvcDatabase>) {}

  get size(): number {
    return this.#meta.size;
  }

  /** Catches up with the database. Concurrent callers share one read. */
  sync(): Promise<void> {
    return this.#syncing ??= this.#catchUp().finally(() => (this.#syncing = undefined));
  }

  /**
   * The k best entries for the query among the partitions (cold entries excluded), with session
   * neighbours lifted by the hits next to them.
   */
  search(query: ParsedQuery, partitions: ReadonlySet<string>, k: number): Hit[] {
    const accept = (m: Meta) => !m.cold && partitions.has(m.partition);
    const hits = [...partitions].flatMap((p) => this.#indexes.get(p)?.search(query, k * 2, accept) ?? [])
      .sort((a, b) => b.score - a.score).slice(0, k * 2);
    const scores = new Map(hits.map((h) => [h.id, h.score]));
    const lent = new Map<string, number>();
    for (const h of hits) {
      for (const n of this.neighbours(h.id, 1)) {
        const m = this.#meta.get(n);
        if (!m || !accept(m)) continue;
        lent.set(n, Math.max(lent.get(n) ?? 0, NEIGHBOUR_LEND * h.score));
      }
    }
    for (const [id, bonus] of lent) scores.set(id, (scores.get(id) ?? 0) + bonus);
    return [...scores].map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
  }

  /** Ids of up to `radius` turns before and after the entry in its conversation, nearest first. */
  neighbours(id: string, radius: number): string[] {
    const meta = this.#meta.get(id);
    const turns = meta?.session ? this.#sessions.get(meta.session) : undefined;
    if (!turns) return [];
    const at = position(turns, meta!.capture);
    const out: string[] = [];
    for (let d = 1; d <= radius; d++) {
      if (turns[at - d]) out.push(turns[at - d]!.id);
      if (turns[at + d]) out.push(turns[at + d]!.id);
    }
    return out;
  }

  /** Drops entries a caller found gone (the deletion log catches them too, on the next sync). */
  evict(ids: Iterable<string>) {
    const dirty = new Set<string>();
    for (const id of ids) this.#remove(id, dirty);
    this.#reindex(dirty);
  }

  async #catchUp(): Promise<void> {
    for (;;) {
      const now = Date.now();
      for (const [seq, at] of this.#gaps) {
        if (now - at > GAP_MS || seq < this.#seen - GAP_WINDOW) this.#gaps.delete(seq);
      }
      // Past the high-water mark, plus exactly the missing values: not every row since the oldest gap.
      const seen = sql<string>`${String(this.#seen)}::bigint`;
      const gaps = [...this.#gaps.keys()].map((g) => sql<string>`${String(g)}::bigint`);
      const [rows, deletions] = await Promise.all([
        this.db.selectFrom("memory_entries")
          .select([
            "id",
            "user_id",
            "project_id",
            "namespace",
            "content",
            "metadata",
            "source_type",
            "cold",
            "session_id",
            "capture_seq",
            "change_seq",
          ])
          .where((eb) =>
            eb.or([eb("change_seq", ">", seen), ...(gaps.length ? [eb("change_seq", "in", gaps)] : [])])
          )
          .orderBy("change_seq").limit(BATCH).execute(),
        this.db.selectFrom("memory_deletions").select(["seq", "entry_id"])
          .where((eb) => eb.or([eb("seq", ">", seen), ...(gaps.length ? [eb("seq", "in", gaps)] : [])]))
          .orderBy("seq").limit(BATCH).execute(),
      ]);
      // Apply in sequence order up to the shorter read's end, so neither table runs ahead.
      const fullRows = rows.length === BATCH, fullDeletions = deletions.length === BATCH;
      const limit = Math.min(
        fullRows ? Number(rows.at(-1)!.change_seq) : Infinity,
        fullDeletions ? Number(deletions.at(-1)!.seq) : Infinity,
      );
      const dirty = new Set<string>();
      const seqs: number[] = [];
      for (const d of deletions) {
        const seq = Number(d.seq);
        if (seq > limit) break;
        seqs.push(seq);
        this.#remove(d.entry_id, dirty);
      }
      for (const row of rows) {
        const seq = Number(row.change_seq);
        if (seq > limit) break;
        seqs.push(seq);
        this.#put(row, dirty);
      }
      this.#reindex(dirty);
      this.#advance(seqs, now);
      if (!fullRows && !fullDeletions) return;
      await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    }
  }

  /** Moves the high-water mark over the values read; values skipped below it become gaps. */
  #advance(seqs: number[], now: number) {
    seqs.sort((a, b) => a - b);
    for (const s of seqs) {
      this.#gaps.delete(s);
      if (s <= this.#seen) continue;
      // The first load has nothing to wait for: any gap before it is history.
      if (this.#seen > 0) {
        for (let g = Math.max(this.#seen + 1, s - GAP_WINDOW); g < s; g++) this.#gaps.set(g, now);
      }
      this.#seen = s;
    }
  }

  #put(row: EntryRow, dirty: Set<string>) {
    const change = Number(row.change_seq);
    const old = this.#meta.get(row.id);
    if (old && old.change >= change) return;
    const partition = partitionKey(row);
    const session = row.session_id === null ? null : `${partition}|${row.user_id}|${row.session_id}`;
    const meta: Meta = { partition, cold: row.cold, session, capture: Number(row.capture_seq), change };
    const text = { content: row.content, tags: [row.source_type ?? "", ...strings(row.metadata)].join(" ") };
    const prev = this.#text.get(row.id);
    if (
      old && prev && prev.content === text.content && prev.tags === text.tags && old.session === session &&
      old.partition === partition
    ) {
      // Only flags moved: no text to re-index.
      this.#meta.set(row.id, meta);
      this.#indexes.get(partition)?.setMeta(row.id, meta);
      return;
    }
    if (old) this.#remove(row.id, dirty);
    this.#text.set(row.id, text);
    this.#meta.set(row.id, meta);
    dirty.add(row.id);
    if (session) {
      let turns = this.#sessions.get(session);
      if (!turns) this.#sessions.set(session, turns = []);
      turns.splice(position(turns, meta.capture), 0, { id: row.id, capture: meta.capture });
      for (const n of this.neighbours(row.id, EXPANSION_RADIUS)) dirty.add(n);
    }
  }

  #remove(id: string, dirty: Set<string>) {
    const meta = this.#meta.get(id);
    if (!meta) return;
    if (meta.session) {
      for (const n of this.neighbours(id, EXPANSION_RADIUS)) dirty.add(n);
      const turns = this.#sessions.get(meta.session)!;
      turns.splice(position(turns, meta.capture), 1);
      if (turns.length === 0) this.#sessions.delete(meta.session);
    }
    const index = this.#indexes.get(meta.partition);
    index?.remove(id);
    if (index?.size === 0) this.#indexes.delete(meta.partition);
    this.#meta.delete(id);
    this.#text.delete(id);
    dirty.delete(id);
  }

  /** Indexes entries again with their neighbours' text as context. */
  #reindex(dirty: Set<string>) {
    for (const id of dirty) {
      const meta = this.#meta.get(id);
      const text = this.#text.get(id);
      if (!meta || !text) continue;
      const context = meta.session
        ? this.neighbours(id, EXPANSION_RADIUS).map((n) => this.#text.get(n)?.content ?? "").join(" ")
        : undefined;
      let index = this.#indexes.get(meta.partition);
      if (!index) this.#indexes.set(meta.partition, index = new FullTextIndex<Meta>(FIELDS));
      index.add(id, { content: text.content, context, tags: text.tags }, meta);
    }
  }
}

interface EntryRow {
  id: string;
  user_id: string;
  project_id: string | null;
  namespace: string;
  content: string;
  metadata: JsonValue;
  source_type: string | null;
  cold: boolean;
  session_id: string | null;
  capture_seq: string;
  change_seq: string;
}

/** Where a turn with this capture position is, or goes, in a conversation (binary search). */
function position(turns: { capture: number }[], capture: number): number {
  let lo = 0, hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (turns[mid]!.capture < capture) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The string values of a metadata object (tags, titles, names), keys left out. */
function strings(value: JsonValue): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}
