import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TreeCache } from "./tree_cache.ts";
import { walkVault } from "./walk_vault.ts";

/** The walk the cache stands for: what a listing must equal once every change was reported. */
async function walked(root: string) {
  return (await walkVault(root, true)).sort((a, b) => (a.path < b.path ? -1 : 1));
}

describe("TreeCache", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "tree-cache-"));
    await mkdir(join(root, "A/B"), { recursive: true });
    await writeFile(join(root, "A/B/one.md"), "1");
    await writeFile(join(root, "top.md"), "top");
  });
  after(async () => await rm(root, { recursive: true, force: true }));

  it("lists what a walk lists, and follows every reported change: files, new and moved folders, deletes", async () => {
    const cache = new TreeCache(root);
    assert.deepEqual(await cache.list(), await walked(root));

    // A new file in new folders, a changed file, a deleted file.
    await mkdir(join(root, "New/Deep"), { recursive: true });
    await writeFile(join(root, "New/Deep/n.md"), "new");
    cache.touch("New/Deep/n.md");
    await writeFile(join(root, "top.md"), "top, longer now");
    cache.touch("top.md");
    await rm(join(root, "A/B/one.md"));
    cache.touch("A/B/one.md");
    assert.deepEqual(await cache.list(), await walked(root));

    // A folder moved: both paths reported; hidden names and symlinks are never listed.
    await writeFile(join(root, "A/B/two.md"), "2");
    await rename(join(root, "A"), join(root, "Moved"));
    await writeFile(join(root, "Moved/.hidden.md"), "h");
    await symlink(join(root, "top.md"), join(root, "Moved/link.md"));
    cache.touch("A");
    cache.touch("Moved");
    const now = await cache.list();
    assert.deepEqual(now, await walked(root));
    assert.ok(now.some((e) => e.path === "Moved/B/two.md"));
    assert.ok(
      !now.some((e) => e.path.startsWith("A/") || e.path.includes("hidden") || e.path.endsWith("link.md")),
    );

    // A file replaced by a folder of the same name.
    await rm(join(root, "top.md"));
    await mkdir(join(root, "top.md"));
    await writeFile(join(root, "top.md/inner.md"), "i");
    cache.touch("top.md");
    assert.deepEqual(await cache.list(), await walked(root));
  });

  it("answers the listing as JSON with ISO times, made again after a change", async () => {
    const cache = new TreeCache(root);
    const asJson = async () =>
      JSON.stringify((await walked(root)).map((e) => ({ ...e, mtime: e.mtime.toISOString() })));
    assert.deepEqual(JSON.parse(await cache.json()), JSON.parse(await asJson()));
    await writeFile(join(root, "json.md"), "j");
    cache.touch("json.md");
    const after = JSON.parse(await cache.json());
    assert.ok(after.some((e: { path: string }) => e.path === "json.md"));
    assert.deepEqual(after, JSON.parse(await asJson()));
  });

  it("shows a change nobody reported once the listing is older than its age, by a walk in the background", async () => {
    const cache = new TreeCache(root, 50);
    await cache.list();
    await writeFile(join(root, "unreported.md"), "u");
    assert.ok(!(await cache.list()).some((e) => e.path === "unreported.md"), "served from memory");
    await new Promise((r) => setTimeout(r, 80));
    await cache.list(); // answered at once; the walk starts
    const deadline = Date.now() + 5_000;
    while (!(await cache.list()).some((e) => e.path === "unreported.md")) {
      assert.ok(Date.now() < deadline, "the background walk never replaced the listing");
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(await cache.list(), await walked(root));
  });

  it("keeps a change reported while a walk runs", async () => {
    const cache = new TreeCache(root, 0);
    await cache.list();
    // Every listing starts a walk; changes land while walks run.
    for (let i = 0; i < 20; i++) {
      await writeFile(join(root, `during-${i}.md`), String(i));
      cache.touch(`during-${i}.md`);
      await cache.list();
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await cache.list(), await walked(root));
  });
});
