/**
 * Tags as the index holds them (`note_index.tags`: front matter and #tags, normalised), so listing a
 * user's tags needs no parse of every note in memory (the notes library's NoteIndex held 30 MB for
 * 5,000 notes to answer this; docs/benchmarks.md, issue 38).
 */
import { sql } from "kysely";
import type { SearchDb } from "./schema.ts";

/** Each note's tags, by path (notes without tags left out). */
export async function tagsByPath(db: SearchDb, userId: string): Promise<Map<string, string[]>> {
  const rows = await db.selectFrom("note_index").select(["path", "tags"])
    .where("user_id", "=", userId).where(sql<boolean>`cardinality(tags) > 0`).execute();
  return new Map(rows.map((r) => [r.path, r.tags]));
}

/**
 * Every tag of a user's notes with the notes carrying it (sorted), compared case-insensitively: a tag
 * is named as the first note by path spells it. Sorted by tag.
 */
export async function noteTags(db: SearchDb, userId: string): Promise<{ tag: string; notes: string[] }[]> {
  const byLower = new Map<string, { tag: string; notes: string[] }>();
  const byPath = [...(await tagsByPath(db, userId))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, tags] of byPath) {
    for (const tag of tags) {
      const key = tag.toLowerCase();
      const e = byLower.get(key) ?? { tag, notes: [] };
      e.notes.push(path);
      byLower.set(key, e);
    }
  }
  return [...byLower.values()].sort((a, b) => a.tag.localeCompare(b.tag));
}
