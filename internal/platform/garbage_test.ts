import assert from "node:assert/strict";
import { test } from "node:test";
import { collectGarbage, collectWhenGrown, startGarbageGuard } from "./garbage.ts";

const MB = 1024 * 1024;
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the guard collects once RSS grew past its threshold, then measures from the level the collection left", async () => {
  let rss = 100 * MB;
  const collections: number[] = [];
  const stop = startGarbageGuard({
    growthBytes: 20 * MB,
    everyMs: 5,
    rss: () => rss,
    gc: () => {
      collections.push(rss);
      rss = 150 * MB; // freed, but handed back only by the next check
    },
  });
  try {
    rss = 115 * MB;
    await tick(30);
    assert.deepEqual(collections, [], "15 MB of growth is below the threshold");
    rss = 90 * MB; // a lower level becomes the one measured from
    await tick(30);
    rss = 111 * MB;
    await tick(30);
    assert.deepEqual(collections, [111 * MB], "21 MB above the lowest level seen");
    rss = 105 * MB; // what the collection left, read after it
    await tick(30);
    rss = 120 * MB;
    await tick(30);
    assert.equal(collections.length, 1, "15 MB above the level after the collection");
    rss = 126 * MB;
    await tick(30);
    assert.deepEqual(collections, [111 * MB, 126 * MB]);
  } finally {
    stop();
  }
  rss = 500 * MB;
  await tick(30);
  assert.equal(collections.length, 2, "no checks after stop");
});

test("the guard spaces collections so they take at most maxShare of the time, and reports each one", async () => {
  let rss = 100 * MB;
  const reported: number[] = [];
  const stop = startGarbageGuard({
    growthBytes: 10 * MB,
    everyMs: 5,
    maxShare: 0.1,
    rss: () => rss,
    gc: () => {
      const until = performance.now() + 50; // a 50 ms collection: the next waits 500 ms
      while (performance.now() < until) { /* busy, as a collection is */ }
    },
    onCollect: (before, ms) => {
      assert.ok(ms >= 50);
      reported.push(before);
    },
  });
  try {
    rss = 120 * MB;
    await tick(40);
    assert.deepEqual(reported, [120 * MB]);
    rss = 100 * MB;
    await tick(20);
    rss = 140 * MB; // past the threshold again, but too soon after the last
    await tick(100);
    assert.equal(reported.length, 1);
    await tick(700);
    assert.deepEqual(reported, [120 * MB, 140 * MB]);
  } finally {
    stop();
  }
});

test("off Bun there is no collector to call: collectGarbage says so and the default guard does nothing", () => {
  assert.equal(collectGarbage(), typeof (globalThis as { Bun?: unknown }).Bun !== "undefined");
  startGarbageGuard()(); // returns a stop function either way
});

test("with ready, a collection due waits for it, unless growth is urgent", async () => {
  let rss = 100 * MB;
  let ready = false;
  const collections: number[] = [];
  const stop = startGarbageGuard({
    growthBytes: 20 * MB,
    urgentBytes: 60 * MB,
    everyMs: 5,
    rss: () => rss,
    ready: () => ready,
    gc: () => collections.push(rss),
  });
  try {
    rss = 130 * MB;
    await tick(30);
    assert.deepEqual(collections, [], "due, but requests are running");
    ready = true;
    await tick(30);
    assert.deepEqual(collections, [130 * MB], "collected in the pause");
    ready = false;
    rss = 60 * MB; // the level it left
    await tick(30);
    rss = 130 * MB;
    await tick(30);
    assert.deepEqual(collections, [130 * MB, 130 * MB], "70 MB of growth does not wait");
  } finally {
    stop();
  }
});

test("collectWhenGrown collects between steps once RSS grew past its threshold, then from what the collection left", () => {
  let rss = 100 * MB;
  const collections: number[] = [];
  const step = collectWhenGrown({
    growthBytes: 20 * MB,
    rss: () => rss,
    gc: () => {
      collections.push(rss);
      rss = 104 * MB;
    },
  });
  rss = 115 * MB;
  assert.equal(step(), false, "15 MB of growth is below the threshold");
  rss = 90 * MB; // a lower level becomes the one measured from
  assert.equal(step(), false);
  rss = 111 * MB;
  assert.equal(step(), true, "21 MB above the lowest level seen");
  assert.deepEqual(collections, [111 * MB]);
  rss = 120 * MB;
  assert.equal(step(), false, "16 MB above the 104 the collection left");
  rss = 125 * MB;
  assert.equal(step(), true);
  assert.deepEqual(collections, [111 * MB, 125 * MB]);
});

test("collectWhenGrown does nothing without a collector", () => {
  const step = collectWhenGrown({ growthBytes: 0, rss: () => Math.random() * 1e9 });
  // Under Deno there is no Bun.gc: never a collection, whatever RSS does.
  if (!(globalThis as { Bun?: unknown }).Bun) assert.equal(step(), false);
});
