import assert from "node:assert/strict";
import { test } from "node:test";
import { planPrune } from "./prune.ts";

const CLUSTER_SCOPED = ["Namespace", "PersistentVolume", "CustomResourceDefinition"];
const o = (apiVersion: string, kind: string, name: string, annotations?: Record<string, string>) => ({
  apiVersion,
  kind,
  metadata: {
    name,
    namespace: CLUSTER_SCOPED.includes(kind) ? undefined : "app",
    annotations,
  },
});

test("prunes what the desired state dropped, workloads first; keeps what it still has", () => {
  const live = [
    o("v1", "ConfigMap", "old-config"),
    o("apps/v1", "Deployment", "old-web"),
    o("v1", "Service", "web"),
    o("apps/v1", "Deployment", "web"),
  ];
  const plan = planPrune(live, [o("apps/v1", "Deployment", "web"), o("v1", "Service", "web")]);
  assert.deepEqual(plan.delete.map((x) => `${x.kind}/${x.metadata?.name}`), [
    "Deployment/old-web",
    "ConfigMap/old-config",
  ]);
  assert.deepEqual(plan.skipped, []);
  assert.equal(plan.skippedMessage, undefined);
});

test("high-risk kinds and prune: disabled are kept and named, at most five", () => {
  const live = [
    o("v1", "Namespace", "team"),
    o("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.example.com"),
    o("v1", "PersistentVolumeClaim", "data"),
    o("v1", "PersistentVolume", "pv-1"),
    o("v1", "Secret", "creds"),
    o("v1", "ConfigMap", "pinned", { "sync.gitsync.io/prune": "disabled" }),
    o("v1", "ConfigMap", "gone"),
  ];
  const plan = planPrune(live, []);
  assert.deepEqual(plan.delete.map((x) => x.metadata?.name), ["gone"]);
  assert.equal(plan.skipped.length, 6);
  assert.equal(
    plan.skippedMessage,
    "prune kept 6 object(s) the Revision no longer has: ConfigMap/app/pinned, CustomResourceDefinition/widgets.example.com, " +
      "Namespace/team, PersistentVolume/pv-1, PersistentVolumeClaim/app/data and 1 more " +
      "(high-risk kinds and objects with sync.gitsync.io/prune: disabled are never pruned during sync)",
  );
});

test("the same name in another API group is another object", () => {
  const plan = planPrune([o("networking.k8s.io/v1", "Ingress", "web")], [
    o("extensions/v1beta1", "Ingress", "web"),
  ]);
  assert.equal(plan.delete.length, 1);
});

test("hook objects and objects already being deleted are left alone", () => {
  const live = [o("batch/v1", "Job", "migrate", { "sync.gitsync.io/hook": "pre-sync" }), {
    ...o("v1", "ConfigMap", "going"),
    metadata: { name: "going", namespace: "app", deletionTimestamp: "2026-11-25T00:00:00Z" },
  }];
  assert.deepEqual(planPrune(live, []).delete, []);
});
