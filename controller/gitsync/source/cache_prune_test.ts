import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { markUsed, pruneSourceCache } from "./cache_prune.ts";

test("clones unused for over an hour are removed; used ones and recent ones stay", async () => {
  const root = await mkdtemp(join(tmpdir(), "cache-prune-"));
  try {
    const now = new Date("2026-11-25T12:00:00Z");
    const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
    for (const name of ["fresh", "stale", "unmarked-old", "unmarked-new"]) {
      await mkdir(join(root, "git", name), { recursive: true });
    }
    await markUsed(join(root, "git", "fresh"), at(59));
    await markUsed(join(root, "git", "stale"), at(61));
    // The clone's folder itself is new (objects written recently), but its last use is what counts.
    await utimes(join(root, "git", "stale"), now, now);
    await utimes(join(root, "git", "unmarked-old"), at(120), at(120));
    await utimes(join(root, "git", "unmarked-new"), at(5), at(5));
    assert.deepEqual((await pruneSourceCache(root, { now })).sort(), ["stale", "unmarked-old"]);
    assert.deepEqual((await readdir(join(root, "git"))).sort(), ["fresh", "unmarked-new"]);
    // Marking again keeps a clone: a fetch just before the prune wins.
    await markUsed(join(root, "git", "fresh"), now);
    assert.deepEqual(await pruneSourceCache(root, { now: new Date(now.getTime() + 30 * 60_000) }), []);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("an empty or missing cache is nothing to prune", async () => {
  assert.deepEqual(await pruneSourceCache(join(tmpdir(), "no-such-cache-root")), []);
});
