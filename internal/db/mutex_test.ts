import assert from "node:assert/strict";
import { test } from "node:test";
import { Mutex } from "./mutex.ts";

test("Mutex grants the lock to one holder at a time, in request order", async () => {
  const mutex = new Mutex();
  const events: string[] = [];
  const holder = async (name: string, ms: number) => {
    const release = await mutex.lock();
    events.push(`${name} in`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    events.push(`${name} out`);
    release();
  };
  await Promise.all([holder("a", 20), holder("b", 0), holder("c", 5)]);
  assert.deepEqual(events, ["a in", "a out", "b in", "b out", "c in", "c out"]);
});

test("Mutex stays usable after a holder releases twice", async () => {
  const mutex = new Mutex();
  const first = await mutex.lock();
  first();
  first();
  const second = await mutex.lock();
  let thirdAcquired = false;
  const third = mutex.lock().then((release) => {
    thirdAcquired = true;
    release();
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(thirdAcquired, false, "a double release must not let a later holder in early");
  second();
  await third;
  assert.equal(thirdAcquired, true);
});
