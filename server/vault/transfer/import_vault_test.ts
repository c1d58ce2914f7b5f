import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { IndexSync } from "../indexing/index_sync.ts";
import { NoteStore } from "../notes/mod.ts";
import { openSearchDb } from "../search/_test_search_db.ts";
import { backlinks, type SearchTables, unresolvedLinks } from "../search/mod.ts";
import { exportVault } from "./export_vault.ts";
import { planImport, type SourceEntry } from "./import_plan.ts";
import { folderSource, zipSource } from "./import_source.ts";
import { importVault } from "./import_vault.ts";
import { zipStream } from "./zip.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const entry = (path: string, type: SourceEntry["type"] = "file", size = 10): SourceEntry => ({
  path,
  type,
  size,
  mtime: new Date(0),
  read: () => Promise.resolve(new Uint8Array(size)),
});

describe("import plan", () => {
  test("takes notes and attachments, keeps .obsidian aside, refuses the rest with a reason", () => {
    const plan = planImport([
      entry("Vault/.obsidian/app.json"),
      entry("Vault/Note.md"),
      entry("Vault/img.png"),
      entry("Vault/sub", "dir"),
      entry("Vault/sub/../../evil.md"),
      entry("Vault/link.md", "symlink"),
      entry("Vault/.git/HEAD"),
      entry("Vault/.git/config"),
      entry("Vault/.trash/old.md"),
      entry("Vault/.hidden.md"),
      entry("Vault/__MACOSX/._Note.md"),
      entry("Vault/a:b.md"),
      entry("Vault/big.md", "file", 2 * 1024 * 1024),
      entry("Vault/note.md"),
    ]);
    assert.equal(plan.stripped, "Vault");
    assert.deepEqual(plan.files.map((f) => `${f.aside ? "aside " : ""}${f.path}`), [
      "aside app.json",
      "Note.md",
      "img.png",
    ]);
    assert.deepEqual(plan.refused.map((r) => `${r.path}: ${r.reason}`), [
      "Vault/sub/../../evil.md: outside the vault (a path with .. or from a root)",
      "link.md: a symbolic link (not followed)",
      ".hidden.md: a hidden file (its name starts with .)",
      "__MACOSX/._Note.md: operating system metadata",
      "a:b.md: invalid path: drive letters are not allowed",
      "big.md: too large: 2097152 bytes (at most 1048576)",
      "note.md: another file of the import has the same path (letter case aside)",
      ".git/: a hidden folder, not imported (2 files)",
      ".trash/: Obsidian's trash, not imported (1 file)",
    ]);
    assert.equal(planImport([entry("/etc/passwd"), entry("C:/x.md")]).refused.length, 2);
  });
});

describe("import and export", () => {
  let database: Database<SearchTables>;
  let dataDir: string;
  let store: NoteStore;
  let sync: IndexSync;
  before(async () => {
    database = await openSearchDb();
    dataDir = await mkdtemp(join(tmpdir(), "vault-import-"));
    const box: { sync?: IndexSync } = {};
    store = new NoteStore({ dataDir, onChange: (c) => box.sync!.handle(c) });
    sync = box.sync = new IndexSync(database.db, store);
  });
  after(async () => {
    await database?.close();
    await rm(dataDir, { recursive: true, force: true });
    await removeDataDirs();
  });

  test("a folder, then its export imported again: byte for byte, links resolved, a re-run changes nothing", async () => {
    const src = join(dataDir, "src");
    const files: Record<string, string | Uint8Array> = {
      "A.md": "# A\nSee [[B]] and [[Later]] and ![[pic.png]].",
      "notes/B.md": "# B\n[back](../A.md)",
      "pic.png": PNG,
      "Board.canvas": '{"nodes":[{"id":"1","type":"file","file":"A.md","x":0,"y":0,"width":10,"height":10}]}',
      ".obsidian/app.json": '{"newLinkFormat":"shortest"}',
      ".obsidian/plugins/x/main.js": "console.log(1)",
      "Other.pdf.txt": "plain file, kept",
      "bad.png": "not a png",
    };
    for (const [p, content] of Object.entries(files)) {
      await mkdir(dirname(join(src, p)), { recursive: true });
      await writeFile(join(src, p), content);
      await utimes(join(src, p), new Date("2024-01-02T03:04:05Z"), new Date("2024-01-02T03:04:05Z"));
    }
    await symlink("/etc/passwd", join(src, "escape.md"));

    const dry = await importVault({ store, sync, userId: "u1" }, await folderSource(src), { dryRun: true });
    assert.equal(dry.created, 7);
    assert.deepEqual(await store.tree("u1"), [], "a dry run writes nothing");

    const seen: number[] = [];
    const report = await importVault({ store, sync, userId: "u1" }, await folderSource(src), {
      onProgress: (p) => seen.push(p.done),
    });
    assert.deepEqual(
      { created: report.created, aside: report.aside, unchanged: report.unchanged },
      { created: 7, aside: 2, unchanged: 0 },
    );
    assert.deepEqual(report.refused.map((r) => r.path), ["bad.png", "escape.md"]);
    assert.match(report.refused[0]!.reason, /content is not image\/png/);
    assert.equal(seen.at(-1), 8);
    assert.deepEqual((await backlinks(database.db, "u1", "notes/B.md")).map((b) => b.path), ["A.md"]);
    assert.deepEqual((await backlinks(database.db, "u1", "pic.png")).map((b) => b.path), ["A.md"]);
    assert.deepEqual((await unresolvedLinks(database.db, "u1")).map((l) => l.target), ["Later"]);
    assert.equal((await store.read("u1", "A.md")).mtime.toISOString(), "2024-01-02T03:04:05.000Z");

    const again = await importVault({ store, sync, userId: "u1" }, await folderSource(src));
    assert.deepEqual({ created: again.created, unchanged: again.unchanged }, { created: 0, unchanged: 7 });

    // Export, then import the zip as another user: every file comes back byte for byte.
    const zipPath = join(dataDir, "export.zip");
    const zip = zipStream();
    const written = new Response(zip.readable).arrayBuffer();
    const exported = await exportVault(store, "u1", zip);
    assert.equal(exported.files, 7);
    await writeFile(zipPath, new Uint8Array(await written));
    const source = await zipSource(zipPath);
    try {
      const second = await importVault({ store, sync, userId: "u2" }, source);
      assert.deepEqual(second.refused, []);
      assert.equal(second.created, 7);
    } finally {
      await source.close();
    }
    for (const p of Object.keys(files).filter((p) => p !== "bad.png")) {
      assert.deepEqual(
        await readFile(join(dataDir, "users", "u2", p)),
        await readFile(join(dataDir, "users", "u1", p)),
        p,
      );
    }
    assert.deepEqual((await backlinks(database.db, "u2", "notes/B.md")).map((b) => b.path), ["A.md"]);
    // Changed content is refused unless overwrite.
    await store.update("u2", "A.md", "changed");
    const clash = await importVault({ store, sync, userId: "u2" }, await zipSource(zipPath));
    assert.deepEqual(clash.refused.map((r) => r.path), ["A.md"]);
    const over = await importVault({ store, sync, userId: "u2" }, await zipSource(zipPath), {
      overwrite: true,
    });
    assert.equal(over.updated, 1);
    assert.deepEqual((await backlinks(database.db, "u2", "notes/B.md")).map((b) => b.path), ["A.md"]);
  });
});
