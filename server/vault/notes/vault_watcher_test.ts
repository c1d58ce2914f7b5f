import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NoteStore } from "./note_store.ts";
import type { NoteChange } from "./note_types.ts";
import { type VaultWatcher, watchVault } from "./vault_watcher.ts";

describe("watchVault", () => {
  let dataDir: string;
  let store: NoteStore;
  let watcher: VaultWatcher;
  let seen: NoteChange[] = [];

  /** Waits (bounded) until `pred` holds for what the watcher reported. */
  async function until(pred: (c: NoteChange[]) => boolean, what: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (pred(seen)) return;
      await new Promise((r) => setTimeout(r, 30));
    }
    assert.fail(`timed out waiting for ${what}; saw ${JSON.stringify(seen.map((c) => [c.kind, c.path]))}`);
  }
  const settle = () => new Promise((r) => setTimeout(r, 500));

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "watch-"));
    store = new NoteStore({ dataDir });
    await store.create("alice", "seed.md", "seed");
    await store.index("alice");
    watcher = watchVault(store, { debounceMs: 150, onChange: (c) => seen.push(c) });
    await watcher.ready;
  });
  after(async () => {
    await watcher.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("reports an edit made behind the store's back, once, and updates the index", async () => {
    seen = [];
    const abs = join(dataDir, "users", "alice", "seed.md");
    // An editor's save: several writes in a row.
    await writeFile(abs, "edited");
    await writeFile(abs, "edited again #fromdisk [[other]]");
    await until((c) => c.length > 0, "the edit");
    await settle();
    assert.deepEqual(seen, [{ userId: "alice", kind: "changed", path: "seed.md", source: "disk" }]);
    assert.equal((await store.read("alice", "seed.md")).content, "edited again #fromdisk [[other]]");
    assert.deepEqual((await store.index("alice")).note("seed.md")?.tags, ["fromdisk"]);
  });

  it("reports new files in new folders, renames and deletes", async () => {
    seen = [];
    const root = join(dataDir, "users", "alice");
    await mkdir(join(root, "new", "deep"), { recursive: true });
    await writeFile(join(root, "new", "deep", "n.md"), "n");
    await until((c) => c.some((x) => x.path === "new/deep/n.md"), "the new file");
    await rename(join(root, "new", "deep", "n.md"), join(root, "moved.md"));
    await until((c) => c.some((x) => x.path === "moved.md"), "the rename");
    await rm(join(root, "moved.md"));
    await until((c) => c.some((x) => x.path === "moved.md" && x.kind === "deleted"), "the delete");
    const kinds = seen.map((c) => `${c.kind} ${c.path}`);
    assert.ok(kinds.includes("created new/deep/n.md"), kinds.join());
    assert.ok(kinds.includes("deleted new/deep/n.md"), kinds.join());
    assert.ok(kinds.includes("created moved.md"), kinds.join());
    assert.ok(kinds.includes("deleted moved.md"), kinds.join());
  });

  it("stays quiet about the store's own writes, the trash and temp files", async () => {
    seen = [];
    await store.create("alice", "own.md", "mine");
    await store.update("alice", "own.md", "mine 2");
    await store.delete("alice", "own.md");
    await store.create("alice", "box/a.md", "[[b]]");
    await store.create("alice", "box/b.md", "b");
    await store.putAttachment(
      "alice",
      "box/p.pdf",
      new TextEncoder().encode("%PDF-1.4\n"),
      "application/pdf",
    );
    await store.rename("alice", "box", "crate");
    await store.rename("alice", "crate/b.md", "b.md");
    await writeFile(join(dataDir, "users", "alice", ".scratch.tmp"), "x");
    await settle();
    assert.deepEqual(seen, []);
  });

  it("reports which user changed", async () => {
    seen = [];
    await mkdir(join(dataDir, "users", "bob"), { recursive: true });
    await settle();
    await writeFile(join(dataDir, "users", "bob", "b.md"), "b");
    await until((c) => c.some((x) => x.userId === "bob"), "bob's file");
    assert.deepEqual(seen.find((x) => x.userId === "bob"), {
      userId: "bob",
      kind: "created",
      path: "b.md",
      source: "disk",
    });
  });
});
