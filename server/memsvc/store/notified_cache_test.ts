import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NotifiedCache } from "./notified_cache.ts";

describe("NotifiedCache", () => {
  it("keeps nothing until listening, then keeps copies until the TTL", () => {
    let now = 0;
    const cache = new NotifiedCache<string>({ ttlMs: 100, now: () => now });
    cache.set("k", "v", "u1", cache.ticket());
    assert.equal(cache.get("k"), undefined, "not listening yet: a notice could be missed");
    cache.listening();
    cache.set("k", "v", "u1", cache.ticket());
    assert.equal(cache.get("k"), "v");
    now = 99;
    assert.equal(cache.get("k"), "v");
    now = 100;
    assert.equal(cache.get("k"), undefined, "re-read after the TTL");
  });

  it("does not keep a read that overlapped an invalidation", () => {
    const cache = new NotifiedCache<string>();
    cache.listening();
    const ticket = cache.ticket();
    cache.delete("other"); // a notice arrives while the read is in flight
    cache.set("k", "stale?", "u1", ticket);
    assert.equal(cache.get("k"), undefined);
    cache.set("k", "fresh", "u1", cache.ticket());
    assert.equal(cache.get("k"), "fresh");
  });

  it("drops by key, by owner, everything, and everything again when listening restarts", () => {
    const cache = new NotifiedCache<number>();
    cache.listening();
    for (const [k, owner] of [["a", "u1"], ["b", "u1"], ["c", "u2"]]) {
      cache.set(k!, 1, owner!, cache.ticket());
    }
    cache.delete("c");
    assert.equal(cache.get("c"), undefined);
    cache.deleteOwner("u1");
    assert.equal(cache.size, 0);
    cache.set("d", 1, "u3", cache.ticket());
    cache.listening();
    assert.equal(cache.get("d"), undefined, "a reconnect may have missed notices");
  });

  it("holds at most maxEntries, dropping the oldest", () => {
    const cache = new NotifiedCache<number>({ maxEntries: 2 });
    cache.listening();
    for (const k of ["a", "b", "c"]) cache.set(k, 1, "u", cache.ticket());
    assert.deepEqual([cache.get("a"), cache.get("b"), cache.get("c")], [undefined, 1, 1]);
  });
});
