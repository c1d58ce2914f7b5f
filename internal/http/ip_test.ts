import { test } from "node:test";
import assert from "node:assert/strict";
import { ipMatcher, parseIp } from "./ip.ts";

test("parses IPv4, IPv6 and IPv4-mapped IPv6", () => {
  assert.deepEqual(parseIp("10.0.0.1"), { version: 4, value: 0x0a000001n });
  assert.deepEqual(parseIp("::1"), { version: 6, value: 1n });
  assert.deepEqual(parseIp("::ffff:127.0.0.1"), parseIp("127.0.0.1"));
  assert.deepEqual(parseIp("[2001:db8::1]"), { version: 6, value: 0x20010db8000000000000000000000001n });
  for (const bad of ["", "1.2.3", "256.1.1.1", "1::2::3", "abcd", "1:2:3:4:5:6:7:8:9"]) {
    assert.equal(parseIp(bad), undefined, bad);
  }
});

test("matches exact addresses and CIDR ranges of the same family", () => {
  const trusted = ipMatcher(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  assert.ok(trusted("127.0.0.1"));
  assert.ok(trusted("::ffff:127.0.0.1"));
  assert.ok(trusted("10.200.3.4"));
  assert.ok(trusted("fd12::5"));
  assert.ok(!trusted("127.0.0.2"));
  assert.ok(!trusted("11.0.0.1"));
  assert.ok(!trusted("::1"));
  assert.ok(!trusted(""));
  // Answers are remembered per address: asking again gives the same answer.
  assert.ok(trusted("10.200.3.4"));
  assert.ok(!trusted("11.0.0.1"));
  // Past the remembered set's size it starts over, still answering right.
  for (let i = 0; i < 1_100; i++) assert.equal(trusted(`10.0.${i >> 8}.${i & 255}`), true);
  assert.ok(trusted("127.0.0.1"));
  assert.ok(!trusted("127.0.0.2"));
  const none = ipMatcher([]);
  assert.ok(!none("127.0.0.1") && !none("::1") && !none(""));
});

test("rejects malformed list entries", () => {
  assert.throws(() => ipMatcher(["10.0.0.0/33"]), /not an IP address or CIDR range/);
  assert.throws(() => ipMatcher(["proxy.local"]), /not an IP address or CIDR range/);
});
