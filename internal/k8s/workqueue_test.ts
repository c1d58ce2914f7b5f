import assert from "node:assert/strict";
import { test } from "node:test";
import { runWorkers, WorkQueue } from "./workqueue.ts";

test("a key added twice while waiting is handed out once, in FIFO order", async () => {
  const q = new WorkQueue<string>();
  for (const k of ["a", "b", "a", "c", "b"]) q.add(k);
  assert.equal(q.length, 3);
  const got = [await q.get(), await q.get(), await q.get()];
  assert.deepEqual(got, ["a", "b", "c"]);
});

test("a key added while it is processed comes back once, after done", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  const first = await q.get();
  q.add("a");
  q.add("a");
  assert.equal(q.length, 0, "not handed to a second worker while in flight");
  q.done(first!);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), "a");
});

test("a waiting get receives the next key; shutDown releases waiters with undefined", async () => {
  const q = new WorkQueue<string>();
  const pending = q.get();
  q.add("x");
  assert.equal(await pending, "x");
  const blocked = q.get();
  q.shutDown();
  assert.equal(await blocked, undefined);
  q.add("y");
  assert.equal(await q.get(), undefined);
});

test("backoff doubles per failure and forget resets it", async () => {
  const q = new WorkQueue<string>({ baseMs: 20, maxMs: 50 });
  const started = Date.now();
  q.addRateLimited("k");
  assert.equal(q.retries("k"), 1);
  assert.equal(await q.get(), "k");
  q.done("k");
  q.addRateLimited("k");
  q.addRateLimited("k");
  assert.equal(q.retries("k"), 3);
  q.forget("k");
  assert.equal(q.retries("k"), 0);
  assert.equal(await q.get(), "k");
  assert.ok(Date.now() - started >= 20, "the first retry waited its backoff");
  q.shutDown();
});

test("runWorkers reconciles each key, retries failures and never runs one key twice at once", async () => {
  const q = new WorkQueue<string>({ baseMs: 1 });
  const inFlight = new Set<string>();
  const runs: string[] = [];
  let failOnce = true;
  const done = runWorkers(q, 3, async (key) => {
    assert.ok(!inFlight.has(key), `${key} reconciled twice at once`);
    inFlight.add(key);
    await new Promise((r) => setTimeout(r, 5));
    inFlight.delete(key);
    runs.push(key);
    if (key === "flaky" && failOnce) {
      failOnce = false;
      throw new Error("transient");
    }
    if (runs.length >= 6) q.shutDown();
  }, (key, err) => runs.push(`error ${key}: ${(err as Error).message}`));
  for (const k of ["a", "b", "flaky", "a", "a"]) q.add(k);
  setTimeout(() => q.add("a"), 2);
  await done;
  assert.ok(runs.includes("error flaky: transient"));
  assert.equal(runs.filter((r) => r === "flaky").length, 2, "retried after the failure");
  q.shutDown();
});
