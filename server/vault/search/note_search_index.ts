/**
 * The vault's full-text index in process: one internal/fulltext index per owner, built from
 * `note_index` on the first search that covers that owner, and caught up before every search from
 * `note_index.change_seq` and `note_deletions` (migration 0007_search_changes), so writes of any
 * process, the file watcher's included, appear, and a restart loses nothing: the database rows are
 * the source, the index is rebuilt. Only owners someone searched are held in memory.
 *
 * Catch-up reads one ordered stream of (user, path, value) past the highest value seen, and the
 * full rows of the owners held; values committed late below the highest are read again
 * (internal/db's ChangeCursor, as memsvc's keyword index does). A document carries the value it
 * was indexed at: a deletion logged before it does not remove it.
 *
 * @example
 * const index = noteSearchIndex(db);
 * const owners = await index.ready(["alice", "bob"]);
 * owners.get("alice")!.match(query, { limit: 20 });
 */
import { sql } from "kysely";
import { ChangeCursor } from "../../../internal/db/change_cursor.ts";
import { writeCount } from "../../../internal/db/write_count.ts";
import { collectWhenGrown } from "../../../internal/platform/mod.ts";
import { FullTextIndex } from "../../../internal/fulltext/mod.ts";
import { folderKeys } from "./note_index.ts";
import { PageRows } from "./page_rows.ts";
import type { SearchDb } from "./schema.ts";

/** Title over tags over body (tiers), BM25F within; the filter keys do not rank. */
const FIELDS = {
  title: { weight: 5, phrases: true, tier: 2 },
  tags: { weight: 2, phrases: true, tier: 1 },
  body: { weight: 1, phrases: true },
  keys: { weight: 0, verbatim: true },
};
const BATCH = 2_000;
/** Rows read at a time when an owner's index is built (their text is garbage once indexed). */
const LOAD_BATCH = 500;
/** While an owner's index is built, a full collection once RSS has grown this much. */
const LOAD_GARBAGE_BYTES = 48 * 1024 * 1024;
/** Deletions are kept this long; an index that did not catch up for half of it starts over. */
const KEEP_DELETIONS_MS = 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/** What the index holds of a note besides its terms (its path is the document's id). */
export interface NoteMeta {
  mtime: number;
  /** The change_seq the note was indexed at. */
  change: number;
}

export type OwnerIndex = FullTextIndex<NoteMeta>;

/** The filter key of a tag key ("project/atlas") or a folder key ("work/2024"). */
export const tagKey = (key: string): string => `t:${key}`;
export const folderKey = (key: string): string => `f:${key}`;

interface NoteRow {
  user_id: string;
  path: string;
  folder: string;
  title: string;
  tags: string[];
  tag_keys: string[];
  mtime: Date;
  size: number;
  body: string;
  change_seq: string;
}

/** What the index and the page rows (page_rows.ts) take of a `note_index` row. */
const ROW_COLUMNS = [
  "user_id",
  "path",
  "folder",
  "title",
  "tags",
  "tag_keys",
  "mtime",
  "size",
  "body",
  "change_seq",
] as const;

const indexes = new WeakMap<SearchDb, NoteSearchIndex>();

/** The index of this database handle (one per server process). */
export function noteSearchIndex(db: SearchDb): NoteSearchIndex {
  let index = indexes.get(db);
  if (!index) indexes.set(db, index = new NoteSearchIndex(db));
  return index;
}

export class NoteSearchIndex {
  readonly #owners = new Map<string, OwnerIndex>();
  readonly #cursor = new ChangeCursor();
  #queue: Promise<void> = Promise.resolve();
  #lastSync = 0;
  #lastPrune = 0;
  /**
   * The embedded database's write count (internal/db/write_count.ts) when the last catch-up began:
   * while it has not moved, no statement wrote anything, so there is nothing to read.
   */
  #caughtUpAt: number | undefined;
  /** The stored rows of recent hits, for pages and snippets (page_rows.ts). */
  readonly rows = new PageRows();

  constructor(private readonly db: SearchDb) {}

  /** Notes held, over every owner loaded. */
  get size(): number {
    let n = 0;
    for (const index of this.#owners.values()) n += index.size;
    return n;
  }

  /** The owners' indexes, caught up with the database (an owner not held yet is built). */
  async ready(owners: Iterable<string>): Promise<Map<string, OwnerIndex>> {
    const wanted = [...new Set(owners)];
    await this.#exclusive(async () => {
      await this.#catchUp();
      // Loaded under the same lock as catch-ups: no change can be passed over while an owner loads.
      for (const owner of wanted) if (!this.#owners.has(owner)) await this.#load(owner);
    });
    return new Map(wanted.map((owner) => [owner, this.#owners.get(owner)!]));
  }

  /** Drops a note a caller found gone (the deletion log says so too, on the next catch-up). */
  evict(owner: string, path: string) {
    this.#owners.get(owner)?.remove(path);
  }

  /** Catches up with the database. */
  sync(): Promise<void> {
    return this.#exclusive(() => this.#catchUp());
  }

  /** Runs catch-ups and loads one at a time. */
  #exclusive(run: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(run);
    this.#queue = next.catch(() => {});
    return next;
  }

  /**
   * Offers a row just indexed to the page rows: the text was read anyway, and a search's page of hits
   * kept there needs no statement (an owner of 1,000 notes is then searched without one).
   */
  #keepRow({ tag_keys: _, change_seq, ...row }: NoteRow) {
    this.rows.keep(row, Number(change_seq));
  }

  async #load(owner: string): Promise<void> {
    const built = new FullTextIndex<NoteMeta>(FIELDS, { exactWords: true });
    // The build makes garbage (each note's words, its rows) faster than the collector, which counts the
    // embedded database's memory as heap, frees it: 5,000 notes took RSS 400 MB above what was kept.
    const collect = collectWhenGrown({ growthBytes: LOAD_GARBAGE_BYTES });
    let after = "";
    for (;;) {
      const rows = await this.db.selectFrom("note_index")
        .select(ROW_COLUMNS)
        .where("user_id", "=", owner).where("path", ">", after).orderBy("path").limit(LOAD_BATCH).execute();
      for (const row of rows) if (put(built, row)) this.#keepRow(row);
      collect();
      if (rows.length < LOAD_BATCH) break;
      after = rows.at(-1)!.path;
    }
    // A built index holds an array per term that grew by doubling and three per note; packed in place,
    // views into a few shared arrays: an owner of 5,000 notes, 56 MB of heap and array buffers built, 39
    // packed (scripts/bench/fulltext_pack.ts). Notes indexed later get arrays of their own again; packing
    // every 1,000 rows of the build, or after catch-ups, did not lower the server's peak (issue 38).
    built.pack();
    // Writes that committed while this read ran come through the next catch-up; put() keeps the newer.
    this.#owners.set(owner, built);
    collect();
  }

  async #catchUp(): Promise<void> {
    const started = Date.now();
    if (this.#lastSync && started - this.#lastSync > KEEP_DELETIONS_MS / 2) {
      // Deletions it never read may be pruned by now: start over from the rows.
      this.#owners.clear();
    }
    if (started - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = started;
      await this.db.deleteFrom("note_deletions")
        .where("deleted_at", "<", new Date(started - KEEP_DELETIONS_MS)).execute();
    }
    // Taken after this catch-up's own write and before its reads: whatever writes from now on, the
    // next catch-up reads. Unmoved since the last one: nothing was written, nothing to read.
    const writes = writeCount(this.db);
    if (writes !== undefined && writes === this.#caughtUpAt) {
      this.#lastSync = started;
      return;
    }
    if (this.#cursor.seen > 0 && !this.#cursor.hasGaps) {
      // Nothing handed out past the highest value seen: nothing to read (one cheap statement instead of two scans).
      const { rows: [last] } = await sql<{ last_value: string }>`select last_value from note_change_seq`
        .execute(this.db);
      if (last && Number(last.last_value) <= this.#cursor.seen) {
        this.#lastSync = started;
        this.#caughtUpAt = writes;
        return;
      }
    }
    for (;;) {
      const now = Date.now();
      const seen = String(this.#cursor.seen);
      const gaps = this.#cursor.pending(now).map(String);
      const again = (column: string) =>
        gaps.length ? sql`or ${sql.ref(column)} = any(${gaps}::bigint[])` : sql``;
      const { rows: changes } = await sql<{ kind: "n" | "d"; user_id: string; path: string; seq: string }>`
        select 'n' as kind, user_id, path, change_seq as seq from note_index
          where change_seq > ${seen}::bigint ${again("change_seq")}
        union all
        select 'd', user_id, path, seq from note_deletions where seq > ${seen}::bigint ${again("seq")}
        order by seq limit ${BATCH}
      `.execute(this.db);
      // Full rows only for the owners held.
      const wanted = new Map<string, string[]>();
      for (const c of changes) {
        if (c.kind === "n" && this.#owners.has(c.user_id)) {
          const paths = wanted.get(c.user_id) ?? [];
          paths.push(c.path);
          wanted.set(c.user_id, paths);
        }
      }
      const rows = new Map<string, NoteRow>();
      for (const [owner, paths] of wanted) {
        const found = await this.db.selectFrom("note_index")
          .select(ROW_COLUMNS)
          .where("user_id", "=", owner).where("path", "=", sql<string>`any(${paths}::text[])`).execute();
        for (const row of found) rows.set(`${owner}\0${row.path}`, row);
      }
      for (const c of changes) {
        const index = this.#owners.get(c.user_id);
        if (!index) continue;
        if (c.kind === "d") {
          const meta = index.meta(c.path);
          if (meta && meta.change < Number(c.seq)) index.remove(c.path);
        } else {
          const row = rows.get(`${c.user_id}\0${c.path}`);
          if (row && put(index, row)) this.#keepRow(row);
        }
      }
      this.#cursor.advance(changes.map((c) => Number(c.seq)), now);
      if (changes.length < BATCH) break;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    this.#lastSync = started;
    this.#caughtUpAt = writes;
  }
}

/** Indexes a row unless the index already holds it at this value or a newer one; whether it did. */
function put(index: OwnerIndex, row: NoteRow): boolean {
  const change = Number(row.change_seq);
  const old = index.meta(row.path);
  if (old && old.change >= change) return false;
  const meta: NoteMeta = { mtime: new Date(row.mtime).getTime(), change };
  index.add(row.path, {
    title: row.title,
    // Tags are words too ("project/atlas" as "project atlas"), so plain text finds them.
    tags: row.tags.join(" ").replace(/[/_-]/g, " "),
    body: row.body,
    keys: [...row.tag_keys.map(tagKey), ...folderKeys(row.folder).map(folderKey)],
  }, meta);
  return true;
}
