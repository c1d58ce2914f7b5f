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
 * Memory: the index keeps no text. Re-indexing a neighbour (its context changed) reads its row
 * again; an entry's own text is known only as a hash, to tell a flag change from an edit. Entries'
 * metadata are typed-array columns (keyword_entries.ts), no object per entry; a loaded snapshot's
 * postings and term lists stay views into the file's bytes (mapped on Bun: resident only where a
 * search has read them, keyword_snapshot.ts), and its ids are hashed only once one is
 * looked up (a write, a delete, a conversation's neighbours), not before the first search.
 *
 * Persistence (`save`, `load`; keyword_snapshot.ts frames the file): the partitions' indexes as
 * typed arrays, stamped with the database's instance id, the high-water mark and gaps they cover.
 * A loaded index catches up like a running one, so a crash after writes loses nothing: they are
 * past the mark. A snapshot older than the deletion log's retention is not loaded (deletes it no
 * longer lists would be missed), nor one ahead of the database (a restore).
 *
 * Catch-up reads rows past the highest sequence value seen, and values committed late below it
 * (internal/db's ChangeCursor).
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { ChangeCursor } from "../../../internal/db/change_cursor.ts";
import { FullTextIndex, type Hit, type ParsedQuery } from "../../../internal/fulltext/mod.ts";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";
import { Entries } from "./keyword_entries.ts";
import { type KeywordColumns, readKeywordSnapshot, writeKeywordSnapshot } from "./keyword_snapshot.ts";
import { expandQuery, EXPANSION_WEIGHT, loadNeighbours, type Neighbours } from "./query_expansion.ts";
import { partitionKey } from "./scope.ts";

/**
 * Field weights: the entry's own words, its neighbours' words, its metadata and source type, and who
 * said it (metadata `speaker`: a question names people, "What does Ross want to name his son?").
 *
 * Chosen on the dev halves of the recall sets (docs/benchmarks.md, "Public sets"; hybrid R@5 / R@10,
 * builtin-static, with search's question-turn prior): a speaker field of weight 1 (the speaker had been
 * one of the tags at 0.3) and context 0.4 took the public sets' macro-average from 0.527 / 0.630 (prior
 * alone) to 0.552 / 0.653; weight 0.6 gave 0.523 / 0.638 without the prior, 1.5 and 2 about what 1 does;
 * context 0.5 (before) 0.544 / 0.638, 0.3 lowered the generated set's R@10 by a point.
 */
export const KEYWORD_FIELDS = {
  content: { weight: 1, phrases: true },
  context: { weight: 0.4, excludable: false },
  tags: { weight: 0.3 },
  // A name's length says nothing (b 0), and most entries have no speaker (an average length near 0).
  speaker: { weight: 1, b: 0 },
};
/** BM25 parameters of the partitions' indexes. */
export const KEYWORD_OPTIONS: { k1?: number; b?: number } = {};
const FIELDS = KEYWORD_FIELDS;
/** Turns on each side whose text is indexed with an entry. */
export const EXPANSION_RADIUS = 2;
/** Share of a hit's score its session neighbours receive. */
export const NEIGHBOUR_LEND = 0.3;
const BATCH = 2_000;
const YIELD_MS = 5;
/** Rows read per query when re-indexing neighbours outside the batch at hand. */
const TEXT_BATCH = 500;
/**
 * A snapshot older than this is not loaded: the deletion log keeps a day (maintenance/decay.ts),
 * and deletes it no longer lists would be missed.
 */
export const SNAPSHOT_MAX_AGE_MS = 12 * 60 * 60_000;

interface Text {
  content: string;
  tags: string;
  speaker: string;
}

const FIELD_SPECS = FIELDS as Record<string, { weight: number }>;

export class KeywordIndex {
  /**
   * One index per partition (user or project, and namespace): a search reads only its scope's
   * postings, so other users' matching rows cost it nothing, and term statistics are the scope's own.
   */
  #indexes = new Map<string, FullTextIndex<number>>();
  /**
   * Each entry's metadata (partition, flags, conversation, positions, text hash) as columns; the
   * partitions' indexes carry an entry's slot in it as their metadata.
   */
  #entries = new Entries();
  readonly #cursor = new ChangeCursor();
  #syncing: Promise<void> | undefined;
  /** A snapshot being loaded: catch-up waits for it rather than reading every row. */
  #loading: Promise<unknown> | undefined;
  /** A snapshot was loaded (or not) and no catch-up has run since: the next sync must read. */
  #loadPending = false;
  /** Entries whose context changed outside a catch-up (evictions), re-indexed by the next one. */
  readonly #pending = new Set<string>();
  #changes = 0;
  #changedAt = 0;
  #loadedSavedAt: number | undefined;
  #loadedMapped = false;
  /** Query expansion's table (query_expansion.ts): undefined until read, null when there is none. */
  #neighbours: Neighbours | null | undefined;
  #neighboursLoading: Promise<unknown> | undefined;

  /**
   * `expansion: false` leaves queries as they are (tests of exact matching); by default a query's stems
   * bring in their word neighbours (query_expansion.ts).
   */
  constructor(private readonly db: Kysely<MemsvcDatabase>, options: { expansion?: boolean } = {}) {
    if (options.expansion === false) {
      this.#neighbours = null;
      return;
    }
    // Read from the start (250 ms), off the first search's path unless it comes at once.
    this.#neighboursLoading = loadNeighbours().then(
      (n) => (this.#neighbours = n),
      () => (this.#neighbours = null),
    );
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Entries changed since the last save (or load). */
  get unsaved(): number {
    return this.#changes;
  }

  /** When the loaded snapshot was saved (ms since the epoch); undefined when none was loaded. */
  get loadedSavedAt(): number | undefined {
    return this.#loadedSavedAt;
  }

  /** Whether the loaded snapshot's sections are views into the file mapped (keyword_snapshot.ts). */
  get loadedMapped(): boolean {
    return this.#loadedMapped;
  }

  /** When the index last changed (ms since the epoch). */
  get changedAt(): number {
    return this.#changedAt;
  }

  /**
   * Catches up with the database. Concurrent callers share one read. `mark` (change_marks.ts: the
   * last value memory_change_seq handed out, read by the caller before this call) skips the read
   * when the index has seen it and waits for no gap; a read that finds nothing past `seen` moves
   * `seen` up to it (numbers taken by writes that left no row, such as a deduplicated remember).
   */
  sync(mark?: number): Promise<void> {
    if (this.#neighbours === undefined) return this.#neighboursLoading!.then(() => this.sync(mark));
    if (mark !== undefined && this.#caughtUp(mark)) return Promise.resolve();
    return this.#syncing ??= this.#catchUp(mark).finally(() => (this.#syncing = undefined));
  }

  #caughtUp(mark: number): boolean {
    return !this.#syncing && !this.#loadPending && this.#pending.size === 0 && this.#cursor.seen >= mark &&
      this.#cursor.pending(Date.now()).length === 0;
  }

  /** Writes every partition's index to `file` (atomically), stamped with what it covers. */
  async save(file: string, instance: string): Promise<void> {
    // Caught up and between catch-ups: no batch half-applied, no re-indexing pending.
    await this.sync();
    while (this.#syncing) await this.#syncing;
    if (this.#pending.size) await this.sync(); // evictions since: their neighbours' context
    const changes = this.#changes;
    const partitions = [...this.#indexes].map(([key, index]) => ({
      key,
      bytes: index.serialize(),
      columns: columnsOf(key, index, this.#entries),
    }));
    await writeKeywordSnapshot(file, {
      instance,
      seen: this.#cursor.seen,
      gaps: this.#cursor.pending(Date.now()),
      savedAt: Date.now(),
      partitions,
    });
    this.#changes -= changes;
  }

  /**
   * Loads a snapshot taken on this database, before the first catch-up; false (and nothing loaded)
   * when there is none, it is damaged, another database's, too old, or ahead of the database.
   */
  load(file: string, instance: string): Promise<boolean> {
    this.#loadPending = true;
    const loading = this.#load(file, instance);
    this.#loading = loading.catch(() => false);
    return loading;
  }

  async #load(file: string, instance: string): Promise<boolean> {
    if (this.#cursor.seen > 0 || this.#syncing) return false;
    const snapshot = await readKeywordSnapshot(file);
    if (!snapshot || snapshot.instance !== instance) return false;
    if (!(Date.now() - snapshot.savedAt < SNAPSHOT_MAX_AGE_MS)) return false;
    const { rows } = await sql<{ last: string }>`select last_value::text as last from memory_change_seq`
      .execute(this.db);
    if (Number(rows[0]?.last ?? 0) < snapshot.seen) return false;
    // Built aside and swapped in whole: a damaged partition leaves the index as it was.
    const entries = new Entries();
    const indexes = new Map<string, FullTextIndex<number>>();
    for (const p of snapshot.partitions) {
      const c = p.columns;
      // An entry's slot is the partition's first slot plus its position: the partition's slots are
      // consecutive, reserved once its index is read.
      const first = entries.ids.length;
      // The first format: each entry's metadata as a JSON array in the index's header.
      const inHeader: unknown[] = [];
      const decode = c
        ? (_: unknown, n: number): number => {
          if (n >= c.cold.length) throw new Error("keyword snapshot has fewer columns than entries");
          return first + n;
        }
        : (value: unknown, n: number): number => {
          inHeader.push(value);
          return first + n;
        };
      // The file's checksum covers the partition's bytes: its own is not computed again.
      const index = FullTextIndex.deserialize(FIELD_SPECS, p.bytes, decode, KEYWORD_OPTIONS, {
        checked: true,
      });
      const count = c ? c.cold.length : inHeader.length;
      if (index.size !== count) return false;
      entries.load(index.ids());
      const partition = entries.partitionId(p.key);
      entries.partition.fill(partition, first, first + count);
      const conversation = (name: string) => entries.conversation(`${p.key}|${name}`);
      if (c) {
        // Columns (the current format): copied in whole; one conversation per name, looked up once.
        entries.cold.set(c.cold, first);
        entries.capture.set(c.capture, first);
        entries.change.set(c.change, first);
        entries.hash.set(c.hash, first);
        const named = c.sessions.map(conversation);
        for (let i = 0; i < count; i++) {
          const s = c.session[i]!;
          const to = s < 0 ? undefined : named[s];
          entries.session[first + i] = to ? to.number : -1;
          to?.append(entries.ids[first + i]!, c.capture[i]!);
        }
      } else {
        inHeader.forEach((value, i) => {
          const [cold, capture, change, hash, name] = value as [
            number,
            number,
            number,
            number,
            string | null,
          ];
          const to = name === null ? undefined : conversation(name);
          entries.set(first + i, {
            partition,
            cold: cold === 1,
            session: to ? to.number : -1,
            capture,
            change,
            hash,
          });
          to?.append(entries.ids[first + i]!, capture);
        });
      }
      indexes.set(p.key, index);
    }
    if (this.#cursor.seen > 0) return false; // a catch-up ran meanwhile
    for (const conversation of entries.sessions.values()) conversation.sort();
    this.#entries = entries;
    this.#indexes = indexes;
    this.#cursor.restore(snapshot.seen, snapshot.gaps, Date.now());
    this.#changes = 0;
    this.#loadedSavedAt = snapshot.savedAt;
    this.#loadedMapped = snapshot.mapped === true;
    return true;
  }

  /**
   * The k best entries for the query among the partitions (cold entries excluded), with session
   * neighbours lifted by the hits next to them. The query's stems bring in their word neighbours
   * (query_expansion.ts) once a sync has read the table, each weighing `expansion` × its cosine (the
   * embedder's blend sets it: fusion.ts).
   */
  search(
    parsed: ParsedQuery,
    partitions: ReadonlySet<string>,
    k: number,
    expansion = EXPANSION_WEIGHT,
  ): Hit[] {
    const query = expandQuery(parsed, this.#neighbours ?? null, expansion);
    const e = this.#entries;
    const allowed = new Set<number>();
    for (const p of partitions) {
      const n = e.knownPartition(p);
      if (n !== undefined) allowed.add(n);
    }
    const accept = (slot: number) => e.cold[slot] === 0 && allowed.has(e.partition[slot]!);
    const hits = [...partitions].flatMap((p) => this.#indexes.get(p)?.search(query, k * 2, accept) ?? [])
      .sort((a, b) => b.score - a.score).slice(0, k * 2);
    const scores = new Map(hits.map((h) => [h.id, h.score]));
    const lent = new Map<string, number>();
    // Without conversations there are no neighbours (nor a lookup by id, which a loaded index defers).
    for (const h of e.sessions.size ? hits : []) {
      for (const n of this.neighbours(h.id, 1)) {
        const slot = e.slot(n);
        if (slot === undefined || !accept(slot)) continue;
        lent.set(n, Math.max(lent.get(n) ?? 0, NEIGHBOUR_LEND * h.score));
      }
    }
    for (const [id, bonus] of lent) scores.set(id, (scores.get(id) ?? 0) + bonus);
    return [...scores].map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
  }

  /** The query's stems that name a speaker (metadata `speaker`) of some entry in the partitions. */
  namedSpeakers(parsed: ParsedQuery, partitions: ReadonlySet<string>): Set<string> {
    const named = new Set<string>();
    for (const term of parsed.terms.keys()) {
      for (const p of partitions) {
        if (this.#indexes.get(p)?.inField(term, "speaker")) {
          named.add(term);
          break;
        }
      }
    }
    return named;
  }

  /** Ids of up to `radius` turns before and after the entry in its conversation, nearest first. */
  neighbours(id: string, radius: number): string[] {
    const e = this.#entries;
    const slot = e.slot(id);
    const conversation = slot === undefined ? undefined : e.conversationOf(slot);
    if (!conversation) return [];
    const { ids } = conversation;
    const at = conversation.position(e.capture[slot!]!);
    const out: string[] = [];
    for (let d = 1; d <= radius; d++) {
      if (at - d >= 0) out.push(ids[at - d]!);
      if (at + d < ids.length) out.push(ids[at + d]!);
    }
    return out;
  }

  /**
   * Drops entries a caller found gone (the deletion log catches them too, on the next sync); their
   * neighbours' context is re-indexed by the next sync.
   */
  evict(ids: Iterable<string>) {
    for (const id of ids) this.#remove(id, this.#pending);
  }

  async #catchUp(mark?: number): Promise<void> {
    await this.#loading;
    this.#loadPending = false;
    for (;;) {
      const now = Date.now();
      // Past the high-water mark, plus exactly the missing values: not every row since the oldest gap.
      const seen = sql<string>`${String(this.#cursor.seen)}::bigint`;
      const gaps = this.#cursor.pending(now).map((g) => sql<string>`${String(g)}::bigint`);
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
      const dirty = new Set(this.#pending);
      this.#pending.clear();
      const texts = new Map<string, Text>();
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
        this.#put(row, dirty, texts);
      }
      await this.#reindex(dirty, texts);
      this.#cursor.advance(seqs, now);
      if (seqs.length) {
        this.#changes += seqs.length;
        this.#changedAt = Date.now();
      }
      if (!fullRows && !fullDeletions) {
        // Everything up to `mark` was committed or is a gap now: numbers taken by writes that left no
        // row would otherwise make every later search read again.
        if (mark !== undefined) this.#cursor.reach(mark, now);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    }
  }

  #put(row: EntryRow, dirty: Set<string>, texts: Map<string, Text>) {
    const e = this.#entries;
    const change = Number(row.change_seq);
    const old = e.slot(row.id);
    if (old !== undefined && e.change[old]! >= change) return;
    const key = partitionKey(row);
    const partition = e.partitionId(key);
    const session = row.session_id === null ? null : `${key}|${row.user_id}|${row.session_id}`;
    const text = textOf(row);
    const hash = hashText(text);
    const capture = Number(row.capture_seq);
    if (
      old !== undefined && e.hash[old] === hash && e.partition[old] === partition &&
      (e.conversationOf(old)?.key ?? null) === session
    ) {
      // Only flags moved: no text to re-index.
      e.set(old, { partition, cold: row.cold, session: e.session[old]!, capture, change, hash });
      return;
    }
    if (old !== undefined) this.#remove(row.id, dirty);
    const conversation = session === null ? undefined : e.conversation(session);
    const slot = e.add(row.id);
    e.set(slot, {
      partition,
      cold: row.cold,
      session: conversation ? conversation.number : -1,
      capture,
      change,
      hash,
    });
    texts.set(row.id, text);
    dirty.add(row.id);
    if (conversation) {
      conversation.insert(row.id, capture);
      for (const n of this.neighbours(row.id, EXPANSION_RADIUS)) dirty.add(n);
    }
  }

  #remove(id: string, dirty: Set<string>) {
    const e = this.#entries;
    const slot = e.slot(id);
    if (slot === undefined) return;
    const conversation = e.conversationOf(slot);
    if (conversation) {
      for (const n of this.neighbours(id, EXPANSION_RADIUS)) dirty.add(n);
      conversation.delete(e.capture[slot]!);
      if (conversation.ids.length === 0) e.dropConversation(conversation);
    }
    const key = e.partitions[e.partition[slot]!]!;
    const index = this.#indexes.get(key);
    index?.remove(id);
    if (index?.size === 0) this.#indexes.delete(key);
    e.delete(slot);
    dirty.delete(id);
  }

  /**
   * Indexes entries again with their neighbours' text as context. Text not in `texts` (rows of the
   * batch at hand) is read from the database: the index keeps none.
   */
  async #reindex(dirty: Set<string>, texts: Map<string, Text>) {
    const wanted = new Set<string>();
    const e = this.#entries;
    for (const id of dirty) {
      if (e.slot(id) === undefined) continue;
      if (!texts.has(id)) wanted.add(id);
      for (const n of this.neighbours(id, EXPANSION_RADIUS)) if (!texts.has(n)) wanted.add(n);
    }
    const missing = [...wanted];
    for (let i = 0; i < missing.length; i += TEXT_BATCH) {
      const rows = await this.db.selectFrom("memory_entries").select([
        "id",
        "content",
        "metadata",
        "source_type",
      ])
        .where("id", "in", missing.slice(i, i + TEXT_BATCH)).execute();
      for (const row of rows) texts.set(row.id, textOf(row));
    }
    for (const id of dirty) {
      const slot = e.slot(id);
      const text = texts.get(id);
      // Gone meanwhile (its deletion is applied by a catch-up), or deleted from the database.
      if (slot === undefined || !text) continue;
      const context = e.session[slot]! >= 0
        ? this.neighbours(id, EXPANSION_RADIUS).map((n) => texts.get(n)?.content ?? "").join(" ")
        : undefined;
      const key = e.partitions[e.partition[slot]!]!;
      let index = this.#indexes.get(key);
      if (!index) this.#indexes.set(key, index = new FullTextIndex<number>(FIELDS, KEYWORD_OPTIONS));
      index.add(id, { content: text.content, context, tags: text.tags, speaker: text.speaker }, slot);
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

/**
 * What an entry is indexed with: its content; metadata `speaker` (a string) as the speaker field; its
 * source type and other metadata values as tags.
 */
export function textOf(row: { content: string; metadata: JsonValue; source_type: string | null }): Text {
  const meta = row.metadata;
  const speaker = meta && typeof meta === "object" && !Array.isArray(meta) && typeof meta.speaker === "string"
    ? meta.speaker
    : "";
  const rest = speaker
    ? Object.fromEntries(Object.entries(meta as object).filter(([k]) => k !== "speaker"))
    : meta;
  return {
    content: row.content,
    tags: [row.source_type ?? "", ...strings(rest as JsonValue)].join(" "),
    speaker,
  };
}

/**
 * Two 32-bit FNV-1a variants over content and tags, as one 53-bit number: tells an edit from a flag
 * change without keeping the text.
 */
function hashText(text: Text): number {
  let a = 0x811c9dc5, b = 0x9e3779b9;
  for (const part of [text.content, "\u0000", text.tags, "\u0000", text.speaker]) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** A partition's entries' metadata as the snapshot's columns, in the index's entry order. */
function columnsOf(partition: string, index: FullTextIndex<number>, e: Entries): KeywordColumns {
  const n = index.size;
  const columns: KeywordColumns = {
    cold: new Uint8Array(n),
    capture: new Float64Array(n),
    change: new Float64Array(n),
    hash: new Float64Array(n),
    session: new Int32Array(n),
    sessions: [],
  };
  // Conversation number to its index in `sessions`.
  const named = new Map<number, number>();
  let i = 0;
  for (const [, slot] of index.entries()) {
    columns.cold[i] = e.cold[slot]!;
    columns.capture[i] = e.capture[slot]!;
    columns.change[i] = e.change[slot]!;
    columns.hash[i] = e.hash[slot]!;
    const conversation = e.conversationOf(slot);
    let s = -1;
    if (conversation) {
      s = named.get(conversation.number) ?? -1;
      // The name without its partition prefix: the snapshot stores it per partition.
      if (s < 0) {
        named.set(
          conversation.number,
          s = columns.sessions.push(conversation.key.slice(partition.length + 1)) - 1,
        );
      }
    }
    columns.session[i++] = s;
  }
  return columns;
}

/** The string values of a metadata object (tags, titles, names), keys left out. */
function strings(value: JsonValue): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}
