import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { type PostgresServer, startPostgres } from "../../../test/harness/postgres.ts";
import { openSearchDb } from "./_test_search_db.ts";
import { backlinks, linkGraph, outgoingLinks, unresolvedLinks } from "./link_graph.ts";
import {
  addFiles,
  type NoteLink,
  removeFolder,
  removeNote,
  renameFolder,
  renameNote,
  upsertNote,
} from "./note_index.ts";
import type { SearchTables } from "./schema.ts";

let postgres: PostgresServer | undefined;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

const wiki = (target: string): NoteLink => ({ target, kind: "wiki" });

type Db = Database<SearchTables>["db"];

const put = (db: Db, user: string, path: string, links: NoteLink[], tags: string[] = []) =>
  upsertNote(db, user, {
    path,
    title: path.toUpperCase(),
    tags,
    body: `note ${path}`,
    contentHash: `${path}:${JSON.stringify(links)}`,
    mtime: new Date(0),
    size: 1,
    links,
  });

/** a -> b -> c -> d, a -> missing (dangling), e embeds a; x is alone; bob has his own a -> b. */
async function seed(db: Db): Promise<void> {
  await put(db, "alice", "a.md", [wiki("b.md"), wiki("missing.md"), wiki("b.md"), {
    target: "b.md",
    dest: "b.md",
    kind: "markdown",
  }]);
  await put(db, "alice", "b.md", [wiki("c.md"), wiki("b.md")], ["hub"]);
  await put(db, "alice", "c.md", [wiki("d.md")]);
  await put(db, "alice", "d.md", []);
  await put(db, "alice", "e.md", [{ target: "a.md", kind: "embed" }]);
  await put(db, "alice", "x.md", []);
  await put(db, "bob", "a.md", [wiki("b.md")]);
}

for (
  const [backend, open] of Object.entries({
    pglite: () => openSearchDb(),
    postgres: () => openSearchDb(postgres!.url),
  })
) {
  describe(`link graph on ${backend}`, () => {
    let database: Database<SearchTables>;
    before(async () => {
      database = await open();
      await seed(database.db);
    });
    after(async () => {
      await database?.close();
    });

    test("backlinks: every linking note once per kind, not the note itself, only the user's own", async () => {
      assert.deepEqual(await backlinks(database.db, "alice", "b.md"), [
        { path: "a.md", title: "A.MD", kind: "markdown" },
        { path: "a.md", title: "A.MD", kind: "wiki" },
      ]);
      assert.deepEqual(await backlinks(database.db, "alice", "a.md"), [{
        path: "e.md",
        title: "E.MD",
        kind: "embed",
      }]);
      assert.deepEqual(await backlinks(database.db, "alice", "x.md"), []);
    });

    test("a link to a note not written yet is unresolved, and resolves when the note appears", async () => {
      // Bob's a.md links b.md, which he does not have (Alice's is hers).
      assert.deepEqual(await backlinks(database.db, "bob", "b.md"), []);
      assert.deepEqual(await unresolvedLinks(database.db, "bob"), [{
        source: "a.md",
        target: "b.md",
        kind: "wiki",
      }]);
      await put(database.db, "bob", "b.md", []);
      assert.deepEqual(await backlinks(database.db, "bob", "b.md"), [{
        path: "a.md",
        title: "A.MD",
        kind: "wiki",
      }]);
      assert.deepEqual(await unresolvedLinks(database.db, "bob"), []);
      assert.deepEqual(await unresolvedLinks(database.db, "alice"), [
        { source: "a.md", target: "missing.md", kind: "wiki" },
      ]);
    });

    test("names resolve by Obsidian's rule whatever the order, and again after moves and deletes", async () => {
      const db = database.db;
      const u = "carol";
      // Written before any target exists; two folders each hold an Index.md.
      await put(db, u, "Work/Plan.md", [wiki("Index"), {
        target: "Work/img.png",
        dest: "img.png",
        kind: "embed",
      }]);
      await put(db, u, "Home/List.md", [wiki("Index")]);
      await put(db, u, "Top.md", [wiki("Index"), wiki("Home/Index")]);
      assert.equal((await unresolvedLinks(db, u)).length, 5);
      await put(db, u, "Home/Index.md", []);
      await put(db, u, "Work/Index.md", []);
      await addFiles(db, u, ["Work/img.png"]);
      const sources = async (path: string) => (await backlinks(db, u, path)).map((b) => b.path);
      // Each folder's notes mean their own Index; elsewhere the shortest path, then alphabetical.
      assert.deepEqual(await sources("Work/Index.md"), ["Work/Plan.md"]);
      assert.deepEqual(await sources("Home/Index.md"), ["Home/List.md", "Top.md"]);
      assert.deepEqual(await sources("Work/img.png"), ["Work/Plan.md"]);
      assert.deepEqual(await unresolvedLinks(db, u), []);
      // One at the root: an exact vault path wins over every folder's own.
      await put(db, u, "Index.md", []);
      assert.deepEqual(await sources("Index.md"), ["Home/List.md", "Top.md", "Work/Plan.md"]);
      // Deleted: what pointed at it resolves to what is left.
      await removeNote(db, u, "Index.md");
      assert.deepEqual(await sources("Work/Index.md"), ["Work/Plan.md"]);
      // Moved away: links follow their name (not the file), the moved note's own links re-resolve.
      await renameNote(db, u, "Work/Index.md", "Archive/Old.md");
      await renameNote(db, u, "Work/Plan.md", "Home/Plan.md");
      assert.deepEqual(await sources("Home/Index.md"), ["Home/List.md", "Home/Plan.md", "Top.md"]);
      assert.deepEqual(await sources("Archive/Old.md"), []);
      // A Markdown link's path stays what the note says until the note's text is rewritten.
      assert.deepEqual(await unresolvedLinks(db, u), []);
      await renameFolder(db, u, "Home", "Personal");
      assert.deepEqual(await sources("Personal/Index.md"), [
        "Personal/List.md",
        "Personal/Plan.md",
        "Top.md",
      ]);
      assert.deepEqual((await unresolvedLinks(db, u)).map((l) => l.target), ["Home/Index"]);
      await removeFolder(db, u, "Personal");
      assert.deepEqual((await unresolvedLinks(db, u)).map((l) => l.target), ["Home/Index", "Index"]);
      // The graph draws the attachment as a file that exists.
      await addFiles(db, u, ["a/img.png"]);
      await put(db, u, "Gallery.md", [{ target: "img.png", kind: "embed" }]);
      const graph = await linkGraph(db, u);
      assert.deepEqual(graph.nodes.find((n) => n.path === "a/img.png"), {
        path: "a/img.png",
        title: "img.png",
        tags: [],
        exists: true,
      });
    });

    test("outgoing links say which targets exist", async () => {
      assert.deepEqual(await outgoingLinks(database.db, "alice", "a.md"), [
        { target: "b.md", kind: "markdown", exists: true },
        { target: "b.md", kind: "wiki", exists: true },
        { target: "missing.md", kind: "wiki", exists: false },
      ]);
    });

    test("the whole graph: every note, dangling targets as nodes that do not exist", async () => {
      const graph = await linkGraph(database.db, "alice");
      assert.deepEqual(graph.nodes.map((n) => `${n.path}${n.exists ? "" : "?"}`), [
        "a.md",
        "b.md",
        "c.md",
        "d.md",
        "e.md",
        "x.md",
        "missing.md?",
      ]);
      assert.deepEqual(graph.nodes.find((n) => n.path === "b.md")!.tags, ["hub"]);
      assert.equal(graph.edges.length, 7);
      assert.equal(graph.truncated, false);
    });

    test("a local graph follows links both ways up to the depth", async () => {
      const one = await linkGraph(database.db, "alice", { center: "b.md" });
      assert.deepEqual(one.nodes.map((n) => n.path), ["a.md", "b.md", "c.md"]);
      assert.deepEqual(one.edges.map((e) => `${e.source}>${e.target}:${e.kind}`), [
        "a.md>b.md:markdown",
        "a.md>b.md:wiki",
        "b.md>b.md:wiki",
        "b.md>c.md:wiki",
      ]);
      const two = await linkGraph(database.db, "alice", { center: "b.md", depth: 2 });
      assert.deepEqual(two.nodes.map((n) => `${n.path}${n.exists ? "" : "?"}`), [
        "a.md",
        "b.md",
        "c.md",
        "d.md",
        "e.md",
        "missing.md?",
      ]);
      const alone = await linkGraph(database.db, "alice", { center: "x.md" });
      assert.deepEqual(alone, {
        nodes: [{ path: "x.md", title: "X.MD", tags: [], exists: true }],
        edges: [],
        truncated: false,
      });
      assert.deepEqual(await linkGraph(database.db, "alice", { center: "nothing.md" }), {
        nodes: [],
        edges: [],
        truncated: false,
      });
      await assert.rejects(linkGraph(database.db, "alice", { center: "b.md", depth: 4 }), RangeError);
    });

    test("a removed note leaves its incoming links dangling", async () => {
      await removeNote(database.db, "alice", "d.md");
      assert.deepEqual(await outgoingLinks(database.db, "alice", "c.md"), [
        { target: "d.md", kind: "wiki", exists: false },
      ]);
      const graph = await linkGraph(database.db, "alice");
      assert.equal(graph.nodes.find((n) => n.path === "d.md")!.exists, false);
    });
  });
}
