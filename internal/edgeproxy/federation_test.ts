import assert from "node:assert/strict";
import { test } from "node:test";
import { conflictRows, type Federation, formatVectorClocks, peerRows } from "./federation.ts";

const now = new Date("2026-11-25T12:00:00Z");
const fed: Federation = {
  metadata: { name: "global", namespace: "edge" },
  spec: {
    federationId: "f",
    localMember: { name: "a", endpoint: "a:7443" },
    members: [{ name: "b", endpoint: "b:7443", region: "r1" }, { name: "c", endpoint: "c:7443" }],
  },
  status: {
    localVectorClock: { b: 2, a: 5 },
    members: [{
      name: "b",
      healthy: true,
      lastSeen: "2026-11-25T11:59:00Z",
      syncLag: "1s",
      agents: 3,
      vectorClock: { b: 2 },
    }],
    conflicts: [{ kind: "ProxyRoute", name: "web", detectedAt: "2026-11-25T11:00:00Z" }],
  },
};

test("peers join spec members with their status; a peer without status is Unknown", () => {
  assert.deepEqual(peerRows(fed, now), [
    ["b", "b:7443", "r1", "true", "60s ago", "1s", 3],
    ["c", "c:7443", undefined, "Unknown", undefined, undefined, undefined],
  ]);
});

test("an unresolved conflict is Pending", () => {
  assert.deepEqual(conflictRows(fed, now), [[
    "ProxyRoute",
    undefined,
    "web",
    "",
    "Pending",
    undefined,
    "60m",
  ]]);
});

test("vector clocks: local sorted by member, then each peer's", () => {
  assert.equal(
    formatVectorClocks(fed),
    "Local Controller:\n  Member:  a\n  Clock:\n    a: 5\n    b: 2\nPeer Vector Clocks:\n  b:\n    b: 2",
  );
});
