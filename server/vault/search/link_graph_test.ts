import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { type PostgresServer, startPostgres } from "../../../test/harness/postgres.ts";
import { openSearchDb } from "./_test_search_db.ts";
import { backlinks, linkGraph, outgoingLinks } from "./link_graph.ts";
import { type NoteLink, removeNote, upsertNote } from "./note_index.ts";
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

/** a -> b -> c -> d, a -> missing (dangling), e embeds a; x is alone; bob has his own a -> b. */
async function seed(db: Database<SearchTables>["db"]): Promise<void> {
  const put = (user: string, path: string, links: NoteLink[], tags: string[] = []) =>
    upsertNote(db, user, {
      path,
      title: path.toUpperCase(),
      tags,
      body: `note ${path}`,
      contentHash: path,
      mtime: new Date(0),
      size: 1,
      links,
    });
  await put("alice", "a.md", [wiki("b.md"), wiki("missing.md"), wiki("b.md"), {
    target: "b.md",
    kind: "markdown",
  }]);
  await put("alice", "b.md", [wiki("c.md"), wiki("b.md")], ["hub"]);
  await put("alice", "c.md", [wiki("d.md")]);
  await put("alice", "d.md", []);
  await put("alice", "e.md", [{ target: "a.md", kind: "embed" }]);
  await put("alice", "x.md", []);
  await put("bob", "a.md", [wiki("b.md")]);
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
      assert.deepEqual(await backlinks(database.db, "bob", "b.md"), [{
        path: "a.md",
        title: "A.MD",
        kind: "wiki",
      }]);
      assert.deepEqual(await backlinks(database.db, "alice", "x.md"), []);
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
