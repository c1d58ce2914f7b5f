import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { hostLimiter } from "./host_limiter.ts";

describe("hostLimiter", () => {
  it("lets a burst through, then spaces requests out per host", async () => {
    let clock = 0;
    const limiter = hostLimiter({ perSecond: 10, burst: 3, now: () => clock });
    const waited: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      let done = false;
      const p = limiter.wait("r.example").then(() => (done = true));
      await new Promise((r) => setImmediate(r));
      waited.push(!done);
      await p;
    }
    assert.deepEqual(waited, [false, false, false, true, true]);
    // Another host has its own bucket.
    let other = false;
    const p = limiter.wait("s.example").then(() => (other = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(other, true);
    await p;
    // After a quiet second, the burst is back.
    clock += 1000;
    let again = false;
    const q = limiter.wait("r.example").then(() => (again = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(again, true);
    await q;
  });
});
