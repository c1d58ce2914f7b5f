/**
 * The stored rows of a search page's hits (title, tags, text for the snippet), read from `note_index`
 * and kept in a cache of recent hits: a search's page was one statement of 1–2 ms on the embedded
 * database (more than the rest of a search at 1,000 notes), and people search the same notes again as
 * they type. The rows an owner's index is built or caught up from are offered too
 * (note_search_index.ts), so an owner whose text fits under the cap is searched without a statement.
 * A cached row is used only while the owner's index holds the note at the change it was read at
 * (`change_seq`, which every write of the row moves), so a row another process or replica changed is
 * read again once the index has caught up with it. Notes longer than `maxRowChars` are never kept.
 */
import { sql } from "kysely";
import type { SearchDb } from "./schema.ts";
import type { SearchHit } from "./search_notes.ts";

/** A hit's stored fields as the row has them, with the owner and the text (for the snippet). */
export type PageRow = Pick<SearchHit, "path" | "folder" | "title" | "tags" | "mtime" | "size"> & {
  user_id: string;
  body: string;
};

/** Characters of text kept in all (about 2 bytes each). */
const MAX_CACHED_CHARS = 4_000_000;
/** Longer notes are read every time. */
const MAX_ROW_CHARS = 16_000;

export class PageRows {
  /** owner\0path -> the row and the change it was read at; oldest first. */
  readonly #rows = new Map<string, { row: PageRow; change: number; chars: number }>();
  #chars = 0;

  constructor(
    private readonly maxChars = MAX_CACHED_CHARS,
    private readonly maxRowChars = MAX_ROW_CHARS,
  ) {}

  /**
   * The rows of `hits` (each with the change its owner's index holds it at), one read per owner for
   * those not kept; a note gone from the table is left out.
   */
  async read(
    db: SearchDb,
    hits: readonly { ownerId: string; path: string; change: number }[],
  ): Promise<Map<string, PageRow>> {
    const out = new Map<string, PageRow>();
    const missing = new Map<string, { path: string; change: number }[]>();
    for (const h of hits) {
      const key = `${h.ownerId}\0${h.path}`;
      const kept = this.#rows.get(key);
      if (kept && kept.change === h.change) {
        // Most recently used last.
        this.#rows.delete(key);
        this.#rows.set(key, kept);
        out.set(key, kept.row);
      } else missing.set(h.ownerId, [...(missing.get(h.ownerId) ?? []), h]);
    }
    for (const [owner, wanted] of missing) {
      const changes = new Map(wanted.map((w) => [w.path, w.change]));
      const rows = await db.selectFrom("note_index")
        .select(["user_id", "path", "folder", "title", "tags", "mtime", "size", "body", "change_seq"])
        .where("user_id", "=", owner)
        .where("path", "=", sql<string>`any(${[...changes.keys()]}::text[])`)
        .execute();
      for (const { change_seq, ...row } of rows) {
        const key = `${row.user_id}\0${row.path}`;
        out.set(key, row);
        // Kept only when it is the row the index holds (a newer one comes with the next catch-up).
        if (Number(change_seq) === changes.get(row.path)) this.keep(row, Number(change_seq));
      }
    }
    return out;
  }

  /** Keeps `row` as of `change` (the change_seq it was read at), dropping the least recently used past the cap. */
  keep(row: PageRow, change: number): void {
    const key = `${row.user_id}\0${row.path}`;
    const chars = row.body.length + row.title.length + row.path.length;
    if (chars > this.maxRowChars) return;
    const old = this.#rows.get(key);
    if (old) {
      this.#rows.delete(key);
      this.#chars -= old.chars;
    }
    this.#rows.set(key, { row, change, chars });
    this.#chars += chars;
    for (const [k, v] of this.#rows) {
      if (this.#chars <= this.maxChars) break;
      this.#rows.delete(k);
      this.#chars -= v.chars;
    }
  }
}
