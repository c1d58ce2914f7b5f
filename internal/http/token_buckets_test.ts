import assert from "node:assert/strict";
import { test } from "node:test";
import { TokenBuckets } from "./token_buckets.ts";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

test("a full bucket lets `burst` requests through at once, then refuses", () => {
  const buckets = new TokenBuckets({ ratePerSecond: 2, burst: 3, now: clock().now });
  assert.deepEqual(buckets.take("k"), { allowed: true, retryAfterSeconds: 0, remaining: 2 });
  assert.equal(buckets.take("k").allowed, true);
  assert.deepEqual(buckets.take("k"), { allowed: true, retryAfterSeconds: 0, remaining: 0 });
  assert.deepEqual(buckets.take("k"), { allowed: false, retryAfterSeconds: 1, remaining: 0 });
});

test("tokens come back at the rate, never beyond the burst", () => {
  const time = clock();
  const buckets = new TokenBuckets({ ratePerSecond: 2, burst: 3, now: time.now });
  for (let i = 0; i < 3; i++) buckets.take("k");
  time.advance(499);
  assert.equal(buckets.take("k").allowed, false, "not a whole token yet");
  time.advance(1);
  assert.equal(buckets.take("k").allowed, true, "one token after half a second");
  assert.equal(buckets.take("k").allowed, false);
  time.advance(60_000);
  for (let i = 0; i < 3; i++) assert.equal(buckets.take("k").allowed, true);
  assert.equal(buckets.take("k").allowed, false, "a long pause refills to the burst only");
});

test("a client at the sustained rate is never refused", () => {
  const time = clock();
  const buckets = new TokenBuckets({ ratePerSecond: 10, burst: 1, now: time.now });
  for (let i = 0; i < 1_000; i++) {
    assert.equal(buckets.take("k").allowed, true, `request ${i}`);
    time.advance(100);
  }
});

test("Retry-After is the time the missing tokens take, rounded up to whole seconds", () => {
  const time = clock();
  const slow = new TokenBuckets({ ratePerSecond: 10 / (15 * 60), burst: 10, now: time.now });
  for (let i = 0; i < 10; i++) slow.take("k");
  assert.deepEqual(slow.take("k"), { allowed: false, retryAfterSeconds: 90, remaining: 0 });
  time.advance(30_000);
  assert.equal(slow.take("k").retryAfterSeconds, 60);
  time.advance(59_500);
  assert.equal(slow.take("k").retryAfterSeconds, 1);
  time.advance(500);
  assert.equal(slow.take("k").allowed, true);
});

test("a cost spends several tokens; one above the burst is charged as the burst", () => {
  const time = clock();
  const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 5, now: time.now });
  assert.deepEqual(buckets.take("k", 3), { allowed: true, retryAfterSeconds: 0, remaining: 2 });
  assert.deepEqual(buckets.take("k", 3), { allowed: false, retryAfterSeconds: 1, remaining: 2 });
  time.advance(3_000);
  assert.deepEqual(buckets.take("k", 50), { allowed: true, retryAfterSeconds: 0, remaining: 0 });
  assert.deepEqual(buckets.take("k", 50), { allowed: false, retryAfterSeconds: 5, remaining: 0 });
});

test("keys have their own buckets", () => {
  const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1, now: clock().now });
  assert.equal(buckets.take("alice").allowed, true);
  assert.equal(buckets.take("alice").allowed, false);
  assert.equal(buckets.take("bob").allowed, true);
});

test("past maxKeys the key used longest ago is forgotten, not one in use", () => {
  const time = clock();
  const buckets = new TokenBuckets({ ratePerSecond: 1 / 3600, burst: 1, maxKeys: 2, now: time.now });
  buckets.take("old");
  buckets.take("busy");
  assert.equal(buckets.take("old").allowed, false, "a use (even refused) makes old the newest");
  buckets.take("new"); // evicts busy, used longest ago
  assert.deepEqual([...buckets.keys()], ["old", "new"]);
  assert.equal(buckets.take("old").allowed, false);
  assert.equal(buckets.take("busy").allowed, true, "busy was forgotten, so it starts full");
});

test("a bucket set below zero (a debt) is paid back by the refill first", () => {
  const time = clock();
  const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 10, now: time.now });
  buckets.bucket("k").tokens = -2;
  assert.deepEqual(buckets.take("k"), { allowed: false, retryAfterSeconds: 3, remaining: 0 });
  time.advance(3_000);
  assert.equal(buckets.take("k").allowed, true);
});

test("refuses nonsense options", () => {
  assert.throws(() => new TokenBuckets({ ratePerSecond: 0, burst: 1 }), RangeError);
  assert.throws(() => new TokenBuckets({ ratePerSecond: 1, burst: 0 }), RangeError);
});
