/**
 * Keeps the search index and link graph in step with a user's files: upsert after a write or an
 * edit seen on disk, remove after a delete, rename after a move, `addFiles` for attachments and
 * canvases. The notes library parses the note (title, tags, links as written); the links are
 * resolved here, against the files the database knows (link_targets.ts), so a link to a note that
 * does not exist yet resolves when it appears.
 *
 * @example
 * await upsertNote(db, userId, {
 *   path: "Projects/Atlas.md", title: "Atlas", tags: ["project/atlas"], body: markdownWithoutFrontMatter,
 *   contentHash, mtime, size, links: [{ target: "Alice", kind: "wiki" }],
 * });
 */
import { sql } from "kysely";
import {
  addFiles as addFileRows,
  lockLinks,
  moveFiles,
  removeFiles,
  writeLinks,
  type WrittenLink,
} from "./link_targets.ts";
import type { SearchDb } from "./schema.ts";

/** Characters of a note's body that are indexed (and snippeted); the rest of a longer note is not. */
export const INDEXED_BODY_CHARS = 200_000;
/** The path limit of the vault (seed: 500 characters). */
const MAX_PATH = 500;

/**
 * A link as written: `target` as in the note for wiki links, resolved against the note's folder for
 * Markdown links (which also carry `dest`, the destination as written, decoded); the notes
 * library's `linkSpec`.
 */
export type NoteLink = WrittenLink;

export interface NoteDocument {
  /** The normalised note path, as the notes library stores it ("Projects/Atlas.md"). */
  path: string;
  title: string;
  /** Tags from front matter and #tags, with or without the '#'. */
  tags: readonly string[];
  /** The text to search: the Markdown without its front matter. */
  body: string;
  contentHash: string;
  mtime: Date;
  /** Bytes of the file. */
  size: number;
  links: readonly NoteLink[];
}

export interface IndexedVersion {
  contentHash: string;
  mtime: Date;
  size: number;
}

/**
 * Indexes a note (insert or replace) with its outgoing links. Returns false when the stored row
 * already had this content hash: then only mtime and size are refreshed, and the full-text
 * document is not rebuilt.
 */
export async function upsertNote(db: SearchDb, userId: string, note: NoteDocument): Promise<boolean> {
  checkPath(note.path);
  return await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    const current = await tx.selectFrom("note_index").select(["content_hash", "title", "tags"])
      .where("user_id", "=", userId).where("path", "=", note.path).forUpdate().executeTakeFirst();
    if (
      current && current.content_hash === note.contentHash && current.title === note.title &&
      sameList(current.tags, normaliseTags(note.tags))
    ) {
      await tx.updateTable("note_index").set({ mtime: note.mtime, size: note.size })
        .where("user_id", "=", userId).where("path", "=", note.path).execute();
      await addFileRows(tx, userId, [note.path]);
      return false;
    }
    await writeNotes(tx, userId, [note]);
    return true;
  });
}

/**
 * Notes per transaction when indexing many: large enough to amortise the statements (an import of
 * 1,000 notes indexed in 1.8 s with 250, 4.1 s with 50, on PGlite at load average 16-21), small
 * enough that a user's own writes wait a fraction of a second behind one.
 */
const BATCH = 250;

/**
 * Indexes many notes at once (a first start over an existing vault, a rebuild), replacing what is
 * indexed at their paths; about twice as fast as one upsertNote per note. Compare with
 * indexedVersions first to skip unchanged notes. The planner's statistics are refreshed after 100
 * notes or more (`analyze` decides instead: an import of many batches refreshes them once, at the end).
 */
export async function upsertNotes(
  db: SearchDb,
  userId: string,
  notes: readonly NoteDocument[],
  options: { analyze?: boolean } = {},
): Promise<void> {
  for (const note of notes) checkPath(note.path);
  for (let i = 0; i < notes.length; i += BATCH) {
    await db.transaction().execute(async (tx) => {
      await lockLinks(tx, userId);
      await writeNotes(tx, userId, notes.slice(i, i + BATCH));
    });
  }
  if (options.analyze ?? notes.length >= ANALYZE_AFTER) await analyzeSearchIndex(db);
}

/** Notes written by one upsertNotes call after which the planner's statistics are refreshed. */
const ANALYZE_AFTER = 100;

/**
 * Refreshes the planner's statistics of the index tables. PostgreSQL's autovacuum does this by
 * itself; PGlite has no autovacuum, and on stale statistics (a vault indexed after the last ANALYZE)
 * the planner can choose plans that make searches several times slower. upsertNotes calls it after
 * a large batch; a server on PGlite should also call it now and then (say, after every few hundred
 * single upserts).
 */
export async function analyzeSearchIndex(db: SearchDb): Promise<void> {
  await sql`analyze note_index, note_links, vault_files`.execute(db);
}

/**
 * Writes the rows and links of `notes` in one statement each. The notes travel as one JSON
 * parameter, read back with jsonb_to_recordset.
 */
async function writeNotes(tx: SearchDb, userId: string, notes: readonly NoteDocument[]): Promise<void> {
  const seen = new Set<string>();
  const unique = notes.filter((n) => !seen.has(n.path) && seen.add(n.path));
  const rows = unique.map((note) => {
    const tags = normaliseTags(note.tags);
    return {
      path: note.path,
      folder: folderOf(note.path),
      title: cleanText(note.title),
      tags,
      tag_keys: tagKeys(tags),
      content_hash: note.contentHash,
      mtime: note.mtime.toISOString(),
      size: note.size,
      body: cleanText(note.body.slice(0, INDEXED_BODY_CHARS)),
    };
  });
  // The full-text index is in process (note_search_index.ts); it catches up from change_seq.
  await sql`
    insert into note_index
      (user_id, path, folder, title, tags, tag_keys, content_hash, mtime, size, body, indexed_at)
    select ${userId}, d.path, d.folder, d.title, d.tags, d.tag_keys, d.content_hash, d.mtime, d.size, d.body, now()
    from jsonb_to_recordset(${rows}::jsonb) as d(path text, folder text, title text, tags text[],
      tag_keys text[], content_hash text, mtime timestamptz, size integer, body text)
    on conflict (user_id, path) do update set
      folder = excluded.folder, title = excluded.title, tags = excluded.tags, tag_keys = excluded.tag_keys,
      content_hash = excluded.content_hash, mtime = excluded.mtime, size = excluded.size,
      body = excluded.body, indexed_at = excluded.indexed_at
  `.execute(tx);
  // The notes are files links may point to: recorded first, so links to them (theirs too) resolve.
  await addFileRows(tx, userId, unique.map((n) => n.path));
  await writeLinks(tx, userId, unique);
}

/**
 * Records attachments, canvases and other files that are not notes (notes are recorded by
 * upsertNote), so links to them resolve; links waiting for them resolve now.
 */
export async function addFiles(db: SearchDb, userId: string, paths: readonly string[]): Promise<void> {
  for (const p of paths) checkPath(p);
  await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    await addFileRows(tx, userId, paths);
  });
}

/** Every file recorded for a user (notes included; below folder `under`, when given): compare with the files on disk. */
export async function indexedFiles(db: SearchDb, userId: string, under?: string): Promise<Set<string>> {
  let q = db.selectFrom("vault_files").select("path").where("user_id", "=", userId);
  if (under) q = q.where(sql<boolean>`starts_with(path, ${folderPrefix(under)})`);
  return new Set((await q.execute()).map((r) => r.path));
}

/**
 * Removes a file (a note, an attachment, a canvas) with the links written in it. Links from other
 * notes to it stay, unresolved now, or resolved to another file of the same name.
 */
export async function removeNote(db: SearchDb, userId: string, path: string): Promise<void> {
  await removeNotes(db, userId, [path]);
}

/** removeNote for many files at once (one transaction). */
export async function removeNotes(db: SearchDb, userId: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    await tx.deleteFrom("note_index").where("user_id", "=", userId)
      .where(sql<boolean>`path = any(${[...paths]}::text[])`).execute();
    await removeFiles(tx, userId, paths);
  });
}

/** Removes every file under a folder (and below it), with their links. */
export async function removeFolder(db: SearchDb, userId: string, folder: string): Promise<void> {
  const prefix = folderPrefix(folder);
  await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    await tx.deleteFrom("note_index").where("user_id", "=", userId)
      .where(sql<boolean>`starts_with(path, ${prefix})`).execute();
    const files = await tx.selectFrom("vault_files").select("path").where("user_id", "=", userId)
      .where(sql<boolean>`starts_with(path, ${prefix})`).execute();
    await removeFiles(tx, userId, files.map((f) => f.path));
  });
}

/**
 * Moves a file's rows (a note's, an attachment's) and the links written in it; links that may name
 * the old or the new path are resolved again. A file already recorded at `to` is replaced. The
 * title and text stay as indexed, but the next upsert of the note rewrites them in full (its hash is
 * cleared): upsert the moved note afterwards, as its title (taken from the file name) and the targets
 * of its Markdown links (relative to its folder) may change with the move.
 */
export async function renameNote(db: SearchDb, userId: string, from: string, to: string): Promise<void> {
  checkPath(to);
  if (from === to) return;
  await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    await tx.deleteFrom("note_index").where("user_id", "=", userId).where("path", "=", to).execute();
    // content_hash '' makes the next upsert of the moved note write its links again: a Markdown
    // link's target is resolved against its note's folder, so the same text names other paths now.
    await tx.updateTable("note_index").set({ path: to, folder: folderOf(to), content_hash: "" })
      .where("user_id", "=", userId).where("path", "=", from).execute();
    await moveFiles(tx, userId, new Map([[from, to]]));
  });
}

/** Moves every file under folder `from` to the same place under `to`, with their links. */
export async function renameFolder(db: SearchDb, userId: string, from: string, to: string): Promise<void> {
  const fromPrefix = folderPrefix(from);
  const toPrefix = folderPrefix(to);
  if (fromPrefix === toPrefix) return;
  if (toPrefix.startsWith(fromPrefix)) throw new RangeError("a folder cannot move into itself");
  const move = (path: string) => toPrefix + path.slice(fromPrefix.length);
  await db.transaction().execute(async (tx) => {
    await lockLinks(tx, userId);
    const files = await tx.selectFrom("vault_files").select("path").where("user_id", "=", userId)
      .where(sql<boolean>`starts_with(path, ${fromPrefix})`).execute();
    const moved = await tx.selectFrom("note_index").select("path").where("user_id", "=", userId)
      .where(sql<boolean>`starts_with(path, ${fromPrefix})`).execute();
    for (const { path } of [...files, ...moved]) checkPath(move(path));
    const start = fromPrefix.length + 1; // substr() counts from 1
    // Notes already at a destination path are replaced, as a file move over them would.
    await sql`delete from note_index where user_id = ${userId} and path in
      (select ${toPrefix} || substr(path, ${start}) from note_index
        where user_id = ${userId} and starts_with(path, ${fromPrefix}))`.execute(tx);
    await sql`update note_index set path = ${toPrefix} || substr(path, ${start}),
        folder = rtrim(${toPrefix} || substr(folder || '/', ${start}), '/'), content_hash = ''
      where user_id = ${userId} and starts_with(path, ${fromPrefix})`.execute(tx);
    await moveFiles(tx, userId, new Map(files.map(({ path }) => [path, move(path)])));
  });
}

/** Removes everything indexed for a user (when the user is removed). */
export async function removeUserIndex(db: SearchDb, userId: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("note_index").where("user_id", "=", userId).execute();
    await tx.deleteFrom("note_links").where("user_id", "=", userId).execute();
    await tx.deleteFrom("vault_files").where("user_id", "=", userId).execute();
  });
}

/**
 * What is indexed for a user (of `paths`, or below folder `under`, when given), path by path: compare with the files on disk
 * to find what to upsert (new or changed hash) and what to remove (gone), after a start or a missed
 * watch event.
 */
export async function indexedVersions(
  db: SearchDb,
  userId: string,
  paths?: readonly string[],
  under?: string,
): Promise<Map<string, IndexedVersion>> {
  let q = db.selectFrom("note_index").select(["path", "content_hash", "mtime", "size"]).where(
    "user_id",
    "=",
    userId,
  );
  if (paths) q = q.where(sql<boolean>`path = any(${[...paths]}::text[])`);
  if (under) q = q.where(sql<boolean>`starts_with(path, ${folderPrefix(under)})`);
  const rows = await q.execute();
  return new Map(rows.map((r) => [r.path, { contentHash: r.content_hash, mtime: r.mtime, size: r.size }]));
}

/** Lower-cased folder and its ancestors: "Work/2024" -> ["work", "work/2024"]; "" -> []. */
export function folderKeys(folder: string): string[] {
  const parts = folder.toLowerCase().split("/").filter(Boolean);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** "a/b/c.md" -> "a/b"; "c.md" -> "". */
export function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** Tags without '#', trimmed, empty ones and duplicates (case-insensitively) dropped, order kept. */
export function normaliseTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().replace(/^#+/, "").normalize("NFC");
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** Lower-cased tags and their ancestors: ["Project/Atlas"] -> ["project/atlas", "project"]. */
export function tagKeys(tags: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const tag of tags) {
    const parts = tag.toLowerCase().split("/").filter(Boolean);
    for (let i = parts.length; i > 0; i--) keys.add(parts.slice(0, i).join("/"));
  }
  return [...keys];
}

/** Drops NUL, which PostgreSQL text cannot hold. */
function cleanText(text: string): string {
  return text.replaceAll("\0", " ");
}

function folderPrefix(folder: string): string {
  const trimmed = folder.replace(/^\/+|\/+$/g, "");
  if (!trimmed) throw new RangeError("a folder path is required (the vault root cannot be moved or removed)");
  return `${trimmed}/`;
}

function checkPath(path: string): void {
  if (!path || path.length > MAX_PATH || path.startsWith("/") || path.includes("\0")) {
    throw new RangeError(`not a normalised note path (1 to ${MAX_PATH} characters, relative, no NUL)`);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
