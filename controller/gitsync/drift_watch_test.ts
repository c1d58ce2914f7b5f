import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_DRIFT_WATCH_KINDS, parseWatchKind } from "./drift_watch.ts";

test("--drift-watch-kinds entries: group/version/Kind or version/Kind", () => {
  assert.deepEqual(parseWatchKind("v1/ConfigMap"), { apiVersion: "v1", kind: "ConfigMap" });
  assert.deepEqual(parseWatchKind("apps/v1/Deployment"), { apiVersion: "apps/v1", kind: "Deployment" });
  assert.deepEqual(parseWatchKind("networking.k8s.io/v1/Ingress"), {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
  });
  assert.deepEqual(parseWatchKind("example.com/v1beta2/Widget"), {
    apiVersion: "example.com/v1beta2",
    kind: "Widget",
  });
  for (const bad of ["ConfigMap", "v1/configmaps", "apps/Deployment", "apps/v1/", "a b/v1/X"]) {
    assert.equal(parseWatchKind(bad), undefined, bad);
  }
  assert.ok(DEFAULT_DRIFT_WATCH_KINDS.every((k) => parseWatchKind(k)));
});
