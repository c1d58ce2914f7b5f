import assert from "node:assert/strict";
import { test } from "node:test";
import { buildPlan, canonicalJson, PLAN_DIFF_BUDGET } from "./plan.ts";

const redact = (t: string) => t.replace(/password=\S+/g, "password=REDACTED");
const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "app", ...extra },
  data,
});

test("create, update and unchanged with diffs that ignore server-owned fields", () => {
  const live = cm("b", { k: "1" }, {
    resourceVersion: "7",
    uid: "u",
    managedFields: [{}],
    creationTimestamp: "x",
  });
  const plan = buildPlan({
    changes: [
      { desired: cm("a", { k: "1" }), after: cm("a", { k: "1" }) },
      { desired: cm("b", { k: "2" }), before: live, after: cm("b", { k: "2" }, { resourceVersion: "8" }) },
      {
        desired: cm("c", { k: "1" }),
        before: cm("c", { k: "1" }, { uid: "u2" }),
        after: cm("c", { k: "1" }),
      },
    ],
    prune: [cm("old", { x: "y" })],
    pruneSkipped: [{ apiVersion: "v1", kind: "Secret", metadata: { name: "keep", namespace: "app" } }],
    redact,
  });
  assert.deepEqual(plan.summary, { create: 1, update: 1, unchanged: 1, prune: 1, pruneSkipped: 1 });
  assert.deepEqual(plan.entries.map((e) => `${e.action} ${e.kind}/${e.name}`), [
    "create ConfigMap/a",
    "update ConfigMap/b",
    "unchanged ConfigMap/c",
    "prune ConfigMap/old",
    "prune-skipped Secret/keep",
  ]);
  const update = plan.entries.find((e) => e.name === "b")!.diff!;
  assert.match(update, /^- {2}k: "1"$/m);
  assert.match(update, /^\+ {2}k: "2"$/m);
  assert.doesNotMatch(update, /resourceVersion|managedFields|uid/);
  assert.equal(plan.entries.find((e) => e.name === "c")!.diff, undefined);
  assert.match(plan.digest, /^sha256:[0-9a-f]{64}$/);
});

test("Secret values never appear; other text goes through the redaction function", () => {
  const secret = (v: string) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: "app" },
    data: { token: v },
  });
  const plan = buildPlan({
    changes: [
      { desired: secret("c2VjcmV0LTI="), before: secret("c2VjcmV0LTE="), after: secret("c2VjcmV0LTI=") },
      { desired: cm("dsn", { url: "x password=hunter2" }), after: cm("dsn", { url: "x password=hunter2" }) },
    ],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  const text = JSON.stringify(plan);
  assert.doesNotMatch(text, /c2VjcmV0|hunter2/);
  assert.match(text, /password=REDACTED/);
  // A changed Secret value is an update whose diff names the key, never the values.
  const secretEntry = plan.entries.find((e) => e.kind === "Secret")!;
  assert.equal(secretEntry.action, "update");
  assert.match(secretEntry.diff!, /^- {2}token: \(hidden\)$/m);
  assert.match(secretEntry.diff!, /^\+ {2}token: \(hidden, changed\)$/m);
  const other = buildPlan({
    changes: [{
      desired: secret("c2VjcmV0LTM="),
      before: secret("c2VjcmV0LTE="),
      after: secret("c2VjcmV0LTM="),
    }],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  const same = buildPlan({
    changes: [{
      desired: secret("c2VjcmV0LTI="),
      before: secret("c2VjcmV0LTE="),
      after: secret("c2VjcmV0LTI="),
    }],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  assert.notEqual(other.digest, same.digest);
});

test("the digest does not depend on key or input order", () => {
  const a = buildPlan({
    changes: [{ desired: cm("a", { x: "1", y: "2" }), after: cm("a", { x: "1", y: "2" }) }, {
      desired: cm("b", {}),
      after: cm("b", {}),
    }],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  const b = buildPlan({
    changes: [{ desired: cm("b", {}), after: cm("b", {}) }, {
      desired: cm("a", { y: "2", x: "1" }),
      after: cm("a", { y: "2", x: "1" }),
    }],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }), '{"a":[{"c":2,"d":1}],"b":1}');
  assert.equal(a.digest, b.digest);
  const changed = buildPlan({
    changes: [{ desired: cm("a", { x: "1", y: "3" }), after: cm("a", { x: "1", y: "3" }) }, {
      desired: cm("b", {}),
      after: cm("b", {}),
    }],
    prune: [],
    pruneSkipped: [],
    redact,
  });
  assert.notEqual(a.digest, changed.digest);
});

test("a plan over its diff budget keeps every entry, drops late diffs, and says so", () => {
  const big = "x".repeat(PLAN_DIFF_BUDGET / 2);
  const changes = ["a", "b", "c"].map((n) => ({ desired: cm(n, { v: big }), after: cm(n, { v: big }) }));
  const plan = buildPlan({ changes, prune: [], pruneSkipped: [], redact });
  assert.equal(plan.entries.length, 3);
  assert.equal(plan.truncated, true);
  assert.ok(plan.entries[0]!.diff);
  assert.equal(plan.entries[2]!.diff, undefined);
});

test("planning a create twice gives one digest though the dry run invents a uid, cluster IP and node port", () => {
  const job = (uid: string) => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "migrate", namespace: "app", uid },
    spec: {
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      template: { metadata: { labels: { "controller-uid": uid } } },
    },
  });
  const svc = (ip: string, port: number) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "app" },
    spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ port: 80, nodePort: port }] },
  });
  const desiredSvc = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web" },
    spec: { ports: [{ port: 80 }] },
  };
  const plan = (uid: string, ip: string, port: number) =>
    buildPlan({
      changes: [
        { desired: { apiVersion: "batch/v1", kind: "Job", metadata: { name: "migrate" } }, after: job(uid) },
        { desired: desiredSvc, after: svc(ip, port) },
      ],
      prune: [],
      pruneSkipped: [],
      redact,
    });
  const a = plan("1111-aaaa", "10.0.0.7", 30001);
  const b = plan("2222-bbbb", "10.0.0.9", 30002);
  assert.equal(a.digest, b.digest);
  assert.doesNotMatch(a.entries.map((e) => e.diff).join(""), /1111|10\.0\.0\.7|30001/);
  // A port the manifest asks for is the manifest's, and a change to it is a change.
  const pinned = (port: number) =>
    buildPlan({
      changes: [{
        desired: { ...desiredSvc, spec: { ports: [{ port: 80, nodePort: port }] } },
        after: svc("10.0.0.7", port),
      }],
      prune: [],
      pruneSkipped: [],
      redact,
    }).digest;
  assert.notEqual(pinned(30001), pinned(30002));
});
