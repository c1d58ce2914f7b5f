import assert from "node:assert/strict";
import { test } from "node:test";
import { coalesce } from "./live.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("coalesce: a burst of calls runs once; a later call runs again; cancel drops a pending run", async () => {
  let runs = 0;
  const reload = coalesce(() => runs++, 20);
  for (let i = 0; i < 1000; i++) reload();
  assert.equal(runs, 0, "not before the window ends");
  await sleep(60);
  assert.equal(runs, 1);
  reload();
  await sleep(60);
  assert.equal(runs, 2);
  reload();
  reload.cancel();
  await sleep(60);
  assert.equal(runs, 2);
  reload();
  await sleep(60);
  assert.equal(runs, 3, "a cancelled run does not block the next");
});
