/**
 * The in-process index against the database: rebuilt after a restart, caught up across replicas on
 * one PostgreSQL 15 (writes, moves, deletes of another process), and rows indexed before migration
 * 0007 found after it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { freshDataDir, removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import { migrate, openDatabase } from "../../../internal/db/mod.ts";
import { type PostgresServer, startPostgres } from "../../../test/harness/postgres.ts";
import { notesIndex } from "../store/migrations/0002_notes_index.ts";
import { searchChanges } from "../store/migrations/0007_search_changes.ts";
import { linkTargets } from "../store/migrations/0009_link_targets.ts";
import { openSearchDb } from "./_test_search_db.ts";
import {
  type NoteDocument,
  removeFolder,
  removeNote,
  renameFolder,
  renameNote,
  upsertNote,
} from "./note_index.ts";
import { noteSearchIndex } from "./note_search_index.ts";
import type { SearchDb, SearchTables } from "./schema.ts";
import { searchNotes } from "./search_notes.ts";

let postgres: PostgresServer | undefined;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

let clock = Date.UTC(2026, 1, 1);
function note(path: string, body: string, tags: string[] = []): NoteDocument {
  clock += 1000;
  return {
    path,
    title: path.replace(/^.*\//, "").replace(/\.md$/, ""),
    tags,
    body,
    contentHash: `h${clock}`,
    mtime: new Date(clock),
    size: body.length,
    links: [],
  };
}
const paths = async (db: SearchDb, q: string, userId = "u") =>
  (await searchNotes(db, { userId }, q)).hits.map((h) => h.path);

describe("note search index", () => {
  test("after a restart the index is rebuilt from the rows, with every change made before it", async () => {
    const dir = await freshDataDir();
    const open = async () => {
      const database = await openDatabase<SearchTables>({ dataDir: dir });
      await migrate(database.db, {
        "0002_notes_index": notesIndex,
        "0007_search_changes": searchChanges,
        "0009_link_targets": linkTargets,
      });
      return database;
    };
    let database = await open();
    await upsertNote(database.db, "u", note("a/keep.md", "walrus keeps"));
    await upsertNote(database.db, "u", note("a/gone.md", "walrus goes"));
    assert.deepEqual((await paths(database.db, "walrus")).sort(), ["a/gone.md", "a/keep.md"]);
    await removeNote(database.db, "u", "a/gone.md");
    await renameNote(database.db, "u", "a/keep.md", "b/kept.md");
    await database.close();

    database = await open();
    try {
      assert.equal(noteSearchIndex(database.db).size, 0, "a new process holds nothing before a search");
      assert.deepEqual(await paths(database.db, "walrus"), ["b/kept.md"]);
      assert.deepEqual(await paths(database.db, "walrus folder:b"), ["b/kept.md"]);
      assert.equal(noteSearchIndex(database.db).size, 1);
    } finally {
      await database.close();
    }
  });

  test("rows read to build or catch up the index serve a page's hits without a statement, the newest", async () => {
    const database = await openSearchDb();
    try {
      await upsertNote(database.db, "k", note("k/a.md", "narwhal first"));
      const index = noteSearchIndex(database.db);
      const owners = await index.ready(["k"]);
      // A handle that fails every statement: what read() returns came from what the index kept.
      const failing = {
        selectFrom: () => {
          throw new Error("read the database");
        },
      } as unknown as SearchDb;
      const page = async () => {
        const hits = [{ ownerId: "k", path: "k/a.md", change: owners.get("k")!.meta("k/a.md")!.change }];
        return (await index.rows.read(failing, hits)).get("k\0k/a.md")!;
      };
      assert.equal((await page()).body, "narwhal first", "kept while the index was built");
      await upsertNote(database.db, "k", { ...note("k/a.md", "narwhal second"), size: 99 });
      await index.ready(["k"]);
      const row = await page();
      assert.equal(row.body, "narwhal second", "kept when the catch-up read the new row");
      assert.equal(row.size, 99);
      assert.match((await searchNotes(database.db, { userId: "k" }, "narwhal")).hits[0]!.snippet, /second/);
    } finally {
      await database.close();
    }
  });

  test("a replica on the same PostgreSQL sees another's writes, moves and deletes at its next search", async () => {
    const one = await openSearchDb(postgres!.url);
    const two = await openDatabase<SearchTables>({ url: postgres!.url });
    try {
      const user = "replicas";
      await upsertNote(one.db, user, note("x/first.md", "heron first"));
      assert.deepEqual(await paths(two.db, "heron", user), ["x/first.md"], "built from the rows");
      await upsertNote(one.db, user, note("x/second.md", "heron second", ["birds"]));
      await upsertNote(one.db, user, { ...note("x/first.md", "egret now"), contentHash: "changed" });
      assert.deepEqual(await paths(two.db, "heron", user), ["x/second.md"]);
      assert.deepEqual(await paths(two.db, "egret", user), ["x/first.md"]);
      await renameFolder(one.db, user, "x", "y/z");
      assert.deepEqual((await paths(two.db, "folder:y/z", user)).sort(), ["y/z/first.md", "y/z/second.md"]);
      assert.deepEqual(await paths(two.db, "folder:x", user), []);
      await removeFolder(one.db, user, "y");
      assert.deepEqual(await paths(two.db, "heron OR egret", user), []);
      // A path deleted and written again: the older deletion does not remove the newer note.
      await upsertNote(one.db, user, note("y/z/first.md", "heron is back"));
      assert.deepEqual(await paths(two.db, "heron", user), ["y/z/first.md"]);
      assert.deepEqual(await paths(one.db, "heron", user), ["y/z/first.md"]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test("notes indexed before migration 0007 are found after it", async () => {
    const database = await openDatabase<SearchTables>({ dataDir: await freshDataDir() });
    try {
      await migrate(database.db, { "0002_notes_index": notesIndex });
      // The row as the PostgreSQL-side index wrote it, tsvector included.
      await sql`insert into note_index (user_id, path, folder, title, tags, tag_keys, content_hash, mtime, size, body, tsv)
        values ('u', 'Old/note.md', 'Old', 'note', '{legacy}', '{legacy}', 'h', now(), 12, 'an old puffin',
          to_tsvector('english', 'an old puffin'))`.execute(database.db);
      await migrate(database.db, {
        "0002_notes_index": notesIndex,
        "0007_search_changes": searchChanges,
        "0009_link_targets": linkTargets,
      });
      assert.deepEqual(await paths(database.db, "puffin tag:legacy folder:old"), ["Old/note.md"]);
      await upsertNote(database.db, "u", note("New/note.md", "a new puffin"));
      assert.deepEqual((await paths(database.db, "puffin")).sort(), ["New/note.md", "Old/note.md"]);
    } finally {
      await database.close();
    }
  });
});
