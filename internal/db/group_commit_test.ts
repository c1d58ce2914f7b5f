import assert from "node:assert/strict";
import { test } from "node:test";
import { GroupCommit } from "./group_commit.ts";

/** A write whose batches stay open until the test releases them; from then on none waits. */
function gatedWrite(fail?: (item: string) => boolean) {
  const batches: string[][] = [];
  const gates: (() => void)[] = [];
  let released = false;
  const write = async (items: string[]) => {
    batches.push(items);
    if (!released) await new Promise<void>((resolve) => gates.push(resolve));
    if (fail && items.some(fail)) throw new Error(`batch with ${items.find(fail)}`);
    return items.map((i) => i.toUpperCase());
  };
  // Not one gate per timer tick until none is left: a batch the group commit starts a turn later (with
  // `coalesce`, after setImmediate) could begin after that check on a loaded machine, and wait forever.
  const releaseAll = async () => {
    released = true;
    for (const open of gates.splice(0)) open();
    await Promise.resolve();
  };
  return { batches, write, releaseAll };
}

test("GroupCommit starts a lone item at once and batches the items that arrive meanwhile", async () => {
  const g = gatedWrite();
  const commits = new GroupCommit(g.write);
  const first = commits.submit("a");
  await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(g.batches, [["a"]], "the first item must not wait for company");
  const rest = ["b", "c", "d"].map((x) => commits.submit(x));
  assert.equal(commits.waiting, 3);
  const done = Promise.all([first, ...rest]);
  const releasing = g.releaseAll();
  assert.deepEqual(await done, ["A", "B", "C", "D"]);
  await releasing;
  assert.deepEqual(g.batches, [["a"], ["b", "c", "d"]]);
});

test("GroupCommit answers no item before its batch's write has returned", async () => {
  const g = gatedWrite();
  const commits = new GroupCommit(g.write);
  let answered = false;
  const p = commits.submit("x").then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(answered, false);
  await g.releaseAll();
  await p;
  assert.equal(answered, true);
});

test("GroupCommit retries a failed batch item by item, so only the bad item fails", async () => {
  const g = gatedWrite((item) => item === "bad");
  const commits = new GroupCommit(g.write);
  const first = commits.submit("a");
  const batch = ["b", "bad", "c"].map((x) =>
    commits.submit(x).then((v) => v, (e: Error) => `failed: ${e.message}`)
  );
  const releasing = g.releaseAll();
  assert.deepEqual(await Promise.all([first, ...batch]), ["A", "B", "failed: batch with bad", "C"]);
  await releasing;
  assert.deepEqual(g.batches, [["a"], ["b", "bad", "c"], ["b"], ["bad"], ["c"]]);
});

test("GroupCommit caps batch size and overlaps up to `concurrency` batches", async () => {
  const g = gatedWrite();
  const commits = new GroupCommit(g.write, { maxBatch: 2, concurrency: 2 });
  const all = ["a", "b", "c", "d", "e"].map((x) => commits.submit(x));
  await new Promise((r) => setTimeout(r, 1));
  assert.deepEqual(g.batches, [["a"], ["b"]], "two batches in flight, the rest waiting");
  const releasing = g.releaseAll();
  assert.deepEqual(await Promise.all(all), ["A", "B", "C", "D", "E"]);
  await releasing;
  assert.ok(g.batches.slice(2).every((b) => b.length <= 2));
});

test("GroupCommit with `coalesce` lets callers of the same event-loop turn join the first batch", async () => {
  const g = gatedWrite();
  const commits = new GroupCommit(g.write, { coalesce: true });
  // As requests read in one turn reach submit: one after another, separated only by microtasks.
  const first = commits.submit("a");
  await Promise.resolve();
  const second = commits.submit("b");
  await Promise.resolve();
  assert.deepEqual(g.batches, [], "the batch waits for the turn to end");
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(g.batches, [["a", "b"]]);
  // A caller of a later turn starts the next batch, after one turn of its own.
  const third = commits.submit("c");
  const releasing = g.releaseAll();
  assert.deepEqual(await Promise.all([first, second, third]), ["A", "B", "C"]);
  await releasing;
  assert.deepEqual(g.batches, [["a", "b"], ["c"]]);

  const plain = gatedWrite();
  const alone = new GroupCommit(plain.write);
  const x = alone.submit("x");
  await Promise.resolve();
  const y = alone.submit("y");
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(plain.batches, [["x"]], "without it the first caller goes alone");
  const releasingPlain = plain.releaseAll();
  await Promise.all([x, y]);
  await releasingPlain;
});
