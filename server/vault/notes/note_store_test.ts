import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConflictError, InvalidCanvasError, NoteError } from "./errors.ts";
import { NoteStore } from "./note_store.ts";
import { MAX_NOTE_BYTES, type NoteChange } from "./note_types.ts";
import { SVG_CSP } from "./attachment_type.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const PDF = new TextEncoder().encode("%PDF-1.7\n%\xe2\xe3\n1 0 obj\n<<>>\nendobj\n");
const SVG = new TextEncoder().encode(
  '<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);

/** Asserts a NoteError with `code` whose message leaks no filesystem path. */
function noteError(code: string, dataDir: string) {
  return (err: unknown) => {
    assert.ok(err instanceof NoteError, String(err));
    assert.equal(err.code, code, err.message);
    assert.ok(!err.message.includes(dataDir) && !err.message.includes("/users/"), err.message);
    return true;
  };
}

describe("NoteStore", () => {
  let dataDir: string;
  let store: NoteStore;
  const changes: NoteChange[] = [];
  const U = "user1";

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "note-store-"));
    store = new NoteStore({ dataDir, onChange: (c) => changes.push(c) });
  });
  after(async () => await rm(dataDir, { recursive: true, force: true }));

  it("creates, reads and updates a note under the user's directory", async () => {
    const created = await store.create(U, "Projects/Plan.md", "# Plan\n");
    assert.equal(created.path, "Projects/Plan.md");
    assert.equal(await readFile(join(dataDir, "users", U, "Projects", "Plan.md"), "utf8"), "# Plan\n");
    const note = await store.read(U, "Projects\\Plan.md");
    assert.equal(note.content, "# Plan\n");
    assert.equal(note.version, created.version);
    assert.equal(note.size, 7);
    const updated = await store.update(U, "Projects/Plan.md", "# Plan v2\n", { ifVersion: note.version });
    assert.notEqual(updated.version, note.version);
    await assert.rejects(store.create(U, "Projects/Plan.md", "again"), noteError("already_exists", dataDir));
    await assert.rejects(store.read(U, "Projects/None.md"), noteError("not_found", dataDir));
    await assert.rejects(store.update(U, "Projects/None.md", "x"), noteError("not_found", dataDir));
    assert.deepEqual(changes.slice(0, 2).map((c) => [c.kind, c.path, c.source]), [
      ["created", "Projects/Plan.md", "store"],
      ["changed", "Projects/Plan.md", "store"],
    ]);
  });

  it("refuses a stale update with the current version and keeps what is on disk", async () => {
    const v1 = await store.create(U, "stale.md", "one");
    const v2 = await store.update(U, "stale.md", "two", { ifVersion: v1.version });
    await assert.rejects(store.update(U, "stale.md", "lost?", { ifVersion: v1.version }), (err: unknown) => {
      assert.ok(err instanceof ConflictError);
      assert.equal(err.status, 409);
      assert.equal(err.currentVersion, v2.version);
      return true;
    });
    assert.equal((await store.read(U, "stale.md")).content, "two");
  });

  it("lets exactly one of many concurrent updates from the same version win", async () => {
    const v = await store.create(U, "race.md", "base");
    const results = await Promise.allSettled(
      Array.from(
        { length: 10 },
        (_, i) => store.update(U, "race.md", `writer ${i}`, { ifVersion: v.version }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    assert.equal(won.length, 1);
    assert.ok(results.every((r) => r.status === "fulfilled" || r.reason instanceof ConflictError));
    const content = (await store.read(U, "race.md")).content;
    assert.match(content, /^writer \d$/);
  });

  it("writes concurrent creates together: each acknowledged on disk, the first of two at one path wins", async () => {
    const seen = changes.length;
    const paths = Array.from({ length: 40 }, (_, i) => `Batch/${i % 4}/n${i}.md`);
    const results = await Promise.allSettled([
      ...paths.map((p, i) => store.create(U, p, `# ${i}\n`)),
      store.create(U, "Batch/same.md", "first"),
      store.create(U, "Batch/same.md", "second"),
      store.create(U, "stale.md/under-a-file.md", "refused"),
    ]);
    for (const [i, r] of results.slice(0, 40).entries()) {
      assert.equal(r.status, "fulfilled", String((r as PromiseRejectedResult).reason));
      assert.equal(await readFile(join(dataDir, "users", U, paths[i]!), "utf8"), `# ${i}\n`);
    }
    assert.equal(results[40]!.status, "fulfilled");
    assert.equal(results[41]!.status, "rejected");
    noteError("already_exists", dataDir)((results[41] as PromiseRejectedResult).reason);
    assert.equal(await readFile(join(dataDir, "users", U, "Batch/same.md"), "utf8"), "first");
    assert.equal(results[42]!.status, "rejected");
    noteError("invalid_path", dataDir)((results[42] as PromiseRejectedResult).reason);
    // Every create told once, none of the refused ones.
    const told = changes.slice(seen).filter((c) => c.path.startsWith("Batch/")).map((c) => c.path).sort();
    assert.deepEqual(told, [...paths, "Batch/same.md"].sort());
  });

  it("accepts 1 MiB and refuses 1 MiB + 1 byte, writing nothing", async () => {
    await store.create(U, "big.md", "x".repeat(MAX_NOTE_BYTES));
    await assert.rejects(
      store.create(U, "bigger.md", "x".repeat(MAX_NOTE_BYTES + 1)),
      noteError("too_large", dataDir),
    );
    await assert.rejects(
      store.update(U, "big.md", "é".repeat(MAX_NOTE_BYTES / 2) + "x"),
      noteError("too_large", dataDir),
    );
    await assert.rejects(stat(join(dataDir, "users", U, "bigger.md")), /ENOENT/);
    assert.equal((await store.read(U, "big.md")).size, MAX_NOTE_BYTES);
  });

  it("writes atomically: no temporary files left, the file mode kept", async () => {
    const abs = join(dataDir, "users", U, "mode.md");
    await store.create(U, "mode.md", "a");
    const { chmod } = await import("node:fs/promises");
    await chmod(abs, 0o600);
    await store.update(U, "mode.md", "b");
    assert.equal((await stat(abs)).mode & 0o777, 0o600);
    const names = await readdir(join(dataDir, "users", U));
    assert.deepEqual(names.filter((n) => n.endsWith(".tmp")), []);
  });

  it("refuses traversal and symlink escapes and creates nothing outside", async () => {
    const outside = join(dataDir, "outside");
    await mkdir(outside);
    await symlink(outside, join(dataDir, "users", U, "escape"));
    for (const p of ["../x.md", "../../x.md", "/etc/x.md", "a/../../x.md", "%2e%2e/x.md", "escape/x.md"]) {
      await assert.rejects(store.create(U, p, "x"), noteError("invalid_path", dataDir), p);
    }
    await assert.rejects(store.create("../user2", "x.md", "x"), noteError("invalid_user", dataDir));
    await assert.rejects(store.read(U, "escape/x.md"), noteError("invalid_path", dataDir));
    assert.deepEqual(await readdir(outside), []);
    await rm(join(dataDir, "users", U, "escape"));
  });

  it("refuses a path through a file, and reports a symlink inside the vault by its real path", async () => {
    await store.create(U, "plain.md", "p");
    await assert.rejects(store.create(U, "plain.md/child.md", "x"), noteError("invalid_path", dataDir));
    await assert.rejects(store.createFolder(U, "plain.md/sub"), noteError("invalid_path", dataDir));
    await assert.rejects(store.rename(U, "stale.md", "plain.md/x.md"), noteError("invalid_path", dataDir));
    await store.createFolder(U, "real");
    await symlink(join(dataDir, "users", U, "real"), join(dataDir, "users", U, "alias"));
    const made = await store.create(U, "alias/via-link.md", "v");
    assert.equal(made.path, "real/via-link.md");
    assert.equal((await store.read(U, "alias/via-link.md")).path, "real/via-link.md");
    assert.ok(!(await store.tree(U)).some((e) => e.path.startsWith("alias")));
    const t = await store.delete(U, "alias/via-link.md");
    assert.equal(t.path, "real/via-link.md");
    await store.purgeTrash(U, t.id);
    await rm(join(dataDir, "users", U, "alias"));
    await store.deleteFolder(U, "real");
  });

  it("manages folders: create, list, refuse to delete when not empty, delete when empty", async () => {
    await store.createFolder(U, "Empty/Deep");
    await assert.rejects(store.createFolder(U, "Empty/Deep"), noteError("already_exists", dataDir));
    const list = await store.listFolder(U, "Empty");
    assert.deepEqual(list.map((e) => [e.path, e.kind]), [["Empty/Deep", "folder"]]);
    await assert.rejects(store.deleteFolder(U, "Empty"), noteError("not_empty", dataDir));
    await store.deleteFolder(U, "Empty/Deep");
    await store.deleteFolder(U, "Empty");
    const folderEvents = changes.filter((c) => c.folder && c.path.startsWith("Empty")).map((c) =>
      `${c.kind} ${c.path}`
    );
    assert.deepEqual(folderEvents, ["created Empty/Deep", "deleted Empty/Deep", "deleted Empty"]);
    await assert.rejects(store.listFolder(U, "Empty"), noteError("not_found", dataDir));
    const top = await store.listFolder(U);
    assert.equal(top[0]!.kind, "folder");
    assert.ok(top.some((e) => e.path === "stale.md" && e.kind === "note" && e.size === 3));
  });

  it("rewrites links in other notes when a note or a folder moves", async () => {
    const V = "links";
    await store.create(V, "Ideas/Target.md", "# Target\n[back](../Index.md)");
    await store.create(V, "Index.md", "[[Target]] [[Ideas/Target#H|t]] [md](Ideas/Target.md) `[[Target]]`");
    await store.create(V, "Other/Note.md", "![[Target]] [up](../Ideas/Target.md)");
    const idx = await store.index(V);
    assert.deepEqual(idx.backlinks("Ideas/Target.md").map((b) => b.source), ["Index.md", "Other/Note.md"]);

    const r = await store.rename(V, "Ideas/Target.md", "Archive/2026/Renamed.md");
    assert.deepEqual(r.rewritten, ["Archive/2026/Renamed.md", "Index.md", "Other/Note.md"]);
    assert.equal(
      (await store.read(V, "Index.md")).content,
      "[[Renamed]] [[Archive/2026/Renamed#H|t]] [md](Archive/2026/Renamed.md) `[[Target]]`",
    );
    assert.equal(
      (await store.read(V, "Other/Note.md")).content,
      "![[Renamed]] [up](../Archive/2026/Renamed.md)",
    );
    assert.equal(
      (await store.read(V, "Archive/2026/Renamed.md")).content,
      "# Target\n[back](../../Index.md)",
    );
    assert.deepEqual(idx.backlinks("Archive/2026/Renamed.md").map((b) => b.source), [
      "Index.md",
      "Other/Note.md",
    ]);

    const board = {
      nodes: [
        { id: "n", type: "file", file: "Archive/2026/Renamed.md", x: 0, y: 0, width: 10, height: 10 },
        { id: "o", type: "file", file: "Index.md", x: 0, y: 0, width: 10, height: 10 },
      ],
    };
    await store.create(V, "Board.canvas", JSON.stringify(board));
    const seenBefore = changes.length;
    const f = await store.rename(V, "Archive", "Old");
    assert.deepEqual(changes.slice(seenBefore).map((c) => [c.kind, c.path, c.from, c.folder]).sort(), [
      ["changed", "Board.canvas", undefined, undefined],
      ["changed", "Index.md", undefined, undefined],
      ["changed", "Other/Note.md", undefined, undefined],
      ["renamed", "Old", "Archive", true],
      ["renamed", "Old/2026/Renamed.md", "Archive/2026/Renamed.md", undefined],
    ]);
    assert.deepEqual(f.moved, [{ from: "Archive/2026/Renamed.md", to: "Old/2026/Renamed.md" }]);
    assert.deepEqual(f.rewritten, ["Board.canvas", "Index.md", "Other/Note.md"]);
    const moved = (await store.readCanvas(V, "Board.canvas")).canvas;
    assert.deepEqual(moved.nodes?.map((n) => (n as { file?: string }).file), [
      "Old/2026/Renamed.md",
      "Index.md",
    ]);
    assert.equal(
      (await store.read(V, "Index.md")).content,
      "[[Renamed]] [[Old/2026/Renamed#H|t]] [md](Old/2026/Renamed.md) `[[Target]]`",
    );
    assert.equal((await store.read(V, "Other/Note.md")).content, "![[Renamed]] [up](../Old/2026/Renamed.md)");
    await assert.rejects(store.rename(V, "Old", "Old/inner"), noteError("invalid_path", dataDir));
    await assert.rejects(store.rename(V, "Index.md", "Other/Note.md"), noteError("already_exists", dataDir));
    await assert.rejects(store.rename(V, "Nope.md", "N.md"), noteError("not_found", dataDir));
  });

  it("moves a folder with sub-folders when the index was built from disk", async () => {
    const V = "cold";
    const root = join(dataDir, "users", V);
    await mkdir(join(root, "Proj", "sub", "deeper"), { recursive: true });
    await writeFile(join(root, "Proj", "sub", "deeper", "d.md"), "d");
    await writeFile(join(root, "Proj", "sub", "s.md"), "[[d]] [[Proj]]");
    await writeFile(join(root, "Top.md"), "[[Proj/sub/s]] [x](Proj/sub/deeper/d.md)");
    const cold = new NoteStore({ dataDir });
    const idx = await cold.index(V);
    assert.ok(!idx.files.has("Proj") && !idx.files.has("Proj/sub"), "folders are not files");
    assert.deepEqual(idx.outgoing("Proj/sub/s.md").map((o) => o.resolved), [
      "Proj/sub/deeper/d.md",
      undefined,
    ]);
    const r = await cold.rename(V, "Proj", "Work/Proj2");
    assert.deepEqual(r.moved.map((m) => m.to).sort(), ["Work/Proj2/sub/deeper/d.md", "Work/Proj2/sub/s.md"]);
    assert.equal(
      (await cold.read(V, "Top.md")).content,
      "[[Work/Proj2/sub/s]] [x](Work/Proj2/sub/deeper/d.md)",
    );
  });

  it("deletes to the trash and restores to the original path", async () => {
    const V = "trash";
    await store.create(V, "a/keep.md", "[[gone]]");
    await store.create(V, "a/gone.md", "bye");
    const t = await store.delete(V, "a/gone.md");
    assert.equal(t.path, "a/gone.md");
    await assert.rejects(store.read(V, "a/gone.md"), noteError("not_found", dataDir));
    assert.ok(!(await store.tree(V)).some((e) => e.path.includes("gone") || e.path.startsWith(".trash")));
    assert.deepEqual((await store.listTrash(V)).map((e) => [e.id, e.path]), [[t.id, "a/gone.md"]]);
    const idx = await store.index(V);
    assert.deepEqual(idx.backlinks("a/gone.md"), []);

    await store.create(V, "a/gone.md", "taken");
    await assert.rejects(store.restore(V, t.id), noteError("already_exists", dataDir));
    await store.delete(V, "a/gone.md");
    await store.restore(V, t.id);
    assert.equal((await store.read(V, "a/gone.md")).content, "bye");
    assert.deepEqual(idx.backlinks("a/gone.md").map((b) => b.source), ["a/keep.md"]);
    assert.equal((await store.listTrash(V)).length, 1);
    await store.purgeTrash(V);
    assert.deepEqual(await store.listTrash(V), []);
    await assert.rejects(store.restore(V, "../../x"), noteError("not_found", dataDir));
  });

  it("stores attachments whose content matches the declared type, SVG with a no-script CSP", async () => {
    await store.putAttachment(U, "img/pic.png", PNG, "image/png");
    await store.putAttachment(U, "doc.pdf", PDF, "application/pdf");
    await store.putAttachment(U, "draw.svg", SVG, "image/svg+xml; charset=utf-8");
    const svg = await store.readAttachment(U, "draw.svg");
    assert.equal(svg.headers["content-security-policy"], SVG_CSP);
    assert.match(SVG_CSP, /script-src 'none'/);
    assert.equal(svg.headers["x-content-type-options"], "nosniff");
    assert.equal((await store.readAttachment(U, "img/pic.png")).type, "image/png");

    const html = new TextEncoder().encode("<html><script>alert(1)</script></html>");
    await assert.rejects(
      store.putAttachment(U, "evil.png", html, "image/png"),
      noteError("type_mismatch", dataDir),
    );
    await assert.rejects(
      store.putAttachment(U, "evil.png", PDF, "image/png"),
      noteError("type_mismatch", dataDir),
    );
    await assert.rejects(
      store.putAttachment(U, "evil.svg", html, "image/svg+xml"),
      noteError("type_mismatch", dataDir),
    );
    await assert.rejects(
      store.putAttachment(U, "pic2.png", PNG, "image/jpeg"),
      noteError("type_mismatch", dataDir),
    );
    await assert.rejects(
      store.putAttachment(U, "x.html", html, "text/html"),
      noteError("unsupported_type", dataDir),
    );
    await assert.rejects(
      store.putAttachment(U, "img/pic.png", PNG, "image/png"),
      noteError("already_exists", dataDir),
    );
    await assert.rejects(stat(join(dataDir, "users", U, "evil.png")), /ENOENT/);
    // A file swapped on disk for something else is not served under its old name.
    await writeFile(join(dataDir, "users", U, "img", "pic.png"), html);
    await assert.rejects(store.readAttachment(U, "img/pic.png"), noteError("type_mismatch", dataDir));
  });

  it("validates canvases before writing them", async () => {
    const canvas = {
      nodes: [
        { id: "a", type: "text", text: "hi", x: 0, y: 0, width: 100, height: 50, color: "1" },
        {
          id: "b",
          type: "file",
          file: "Projects/Plan.md",
          subpath: "#H",
          x: 200,
          y: 0,
          width: 100,
          height: 50,
        },
      ],
      edges: [{ id: "e", fromNode: "a", toNode: "b", toEnd: "arrow" }],
    };
    await store.create(U, "board.canvas", JSON.stringify(canvas));
    assert.deepEqual(JSON.parse((await store.read(U, "board.canvas")).content), canvas);
    const bad = { ...canvas, edges: [{ id: "e", fromNode: "a", toNode: "zzz" }] };
    await assert.rejects(store.create(U, "bad.canvas", JSON.stringify(bad)), (err: unknown) => {
      assert.ok(err instanceof InvalidCanvasError);
      assert.deepEqual(err.issues[0]!.path, ["edges", 0, "toNode"]);
      return true;
    });
    await assert.rejects(store.update(U, "board.canvas", "{not json"), InvalidCanvasError);
    const read = await store.readCanvas(U, "board.canvas");
    assert.deepEqual(read.canvas, canvas);
    await writeFile(join(dataDir, "users", U, "broken.canvas"), '{"nodes": [{"id": 1}]}');
    await assert.rejects(store.readCanvas(U, "broken.canvas"), InvalidCanvasError);
    await assert.rejects(store.readCanvas(U, "stale.md"), noteError("not_a_note", dataDir));
    await rm(join(dataDir, "users", U, "broken.canvas"));
    await assert.rejects(stat(join(dataDir, "users", U, "bad.canvas")), /ENOENT/);
    assert.deepEqual(JSON.parse((await store.read(U, "board.canvas")).content), canvas);
  });

  it("lists the whole tree with kinds and sizes, hidden entries left out", async () => {
    const tree = await store.tree(U);
    const byPath = new Map(tree.map((e) => [e.path, e]));
    assert.equal(byPath.get("Projects")?.kind, "folder");
    assert.equal(byPath.get("Projects/Plan.md")?.kind, "note");
    assert.equal(byPath.get("board.canvas")?.kind, "canvas");
    assert.equal(byPath.get("img/pic.png")?.kind, "attachment");
    assert.ok(tree.every((e) => !e.path.split("/").some((s) => s.startsWith("."))));
    // Files other tools made that the API could not address are not listed.
    for (const odd of ["Re: meeting.md", "Cafe\u0301.md", "trailing.md "]) {
      await writeFile(join(dataDir, "users", U, odd), "x");
    }
    const again = (await store.tree(U)).map((e) => e.path);
    assert.deepEqual(again, tree.map((e) => e.path));
    assert.deepEqual(tree.map((e) => e.path), [...tree.map((e) => e.path)].sort());
  });

  it("picks up an edit made behind its back, and ignores echoes of its own writes", async () => {
    const V = "disk";
    const idx = await store.index(V);
    await store.create(V, "n.md", "first");
    assert.deepEqual(await store.applyDiskChange(V, "n.md"), []); // own write
    await writeFile(join(dataDir, "users", V, "n.md"), "edited [[m]] #ext");
    const c = await store.applyDiskChange(V, "n.md");
    assert.deepEqual(c, [{ userId: V, kind: "changed", path: "n.md", source: "disk" }]);
    assert.deepEqual(idx.note("n.md")?.tags, ["ext"]);
    assert.equal((await store.read(V, "n.md")).content, "edited [[m]] #ext");
    await writeFile(join(dataDir, "users", V, "m.md"), "new");
    assert.deepEqual((await store.applyDiskChange(V, "m.md")).map((c) => c.kind), ["created"]);
    assert.deepEqual(idx.backlinks("m.md").map((b) => b.source), ["n.md"]);
    await rm(join(dataDir, "users", V, "m.md"));
    assert.deepEqual((await store.applyDiskChange(V, "m.md")).map((c) => c.kind), ["deleted"]);
    assert.deepEqual(await store.applyDiskChange(V, ".trash/x.md"), []);
    // A folder moved in from elsewhere is walked; a folder removed takes its files along.
    await mkdir(join(dataDir, "users", V, "box", "inner"), { recursive: true });
    await writeFile(join(dataDir, "users", V, "box", "inner", "p.md"), "p");
    await writeFile(join(dataDir, "users", V, "box", "q.md"), "q");
    const added = await store.applyDiskChange(V, "box");
    assert.deepEqual(added.map((c) => [c.kind, c.path]).sort(), [["created", "box/inner/p.md"], [
      "created",
      "box/q.md",
    ]]);
    await rm(join(dataDir, "users", V, "box"), { recursive: true });
    const removed = await store.applyDiskChange(V, "box");
    assert.deepEqual(removed.map((c) => [c.kind, c.path]).sort(), [["deleted", "box/inner/p.md"], [
      "deleted",
      "box/q.md",
    ]]);
    assert.ok(!idx.files.has("box/q.md"));
  });
});
