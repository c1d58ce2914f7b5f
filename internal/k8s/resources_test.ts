import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startFakeApiServer } from "./_fake_api_server.ts";
import { KubeClient } from "./client.ts";
import type { ApiResource } from "./discovery.ts";
import {
  deleteObject,
  listObjects,
  objectRef,
  replacingMergePatch,
  resourcePath,
  threeWayMergePatch,
} from "./resources.ts";

const base = { singular: "", shortNames: [], verbs: [], categories: [], preferred: true };
const cm: ApiResource = {
  ...base,
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};
const gw: ApiResource = {
  ...base,
  group: "edgeproxy.io",
  version: "v1alpha1",
  resource: "gateways",
  kind: "ProxyGateway",
  namespaced: true,
};
const ns: ApiResource = {
  ...base,
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  namespaced: false,
};

describe("resourcePath", () => {
  it("builds core, group, namespaced and cluster-scoped paths", () => {
    assert.equal(resourcePath(cm, { namespace: "default" }), "/api/v1/namespaces/default/configmaps");
    assert.equal(resourcePath(cm), "/api/v1/configmaps");
    assert.equal(
      resourcePath(gw, { namespace: "edge", name: "main", subresource: "status" }),
      "/apis/edgeproxy.io/v1alpha1/namespaces/edge/gateways/main/status",
    );
    assert.equal(
      resourcePath(ns, { namespace: "ignored", name: "kube-system" }),
      "/api/v1/namespaces/kube-system",
    );
    assert.equal(
      resourcePath(cm, { namespace: "a", name: "x/../y" }),
      "/api/v1/namespaces/a/configmaps/x%2F..%2Fy",
    );
    assert.throws(() => resourcePath(cm, { name: "" }), /name must not be empty/);
  });

  it("objectRef names objects as kubectl's messages do", () => {
    assert.equal(objectRef(cm, "web"), "configmap/web");
    assert.equal(objectRef(gw, "main"), "proxygateway.edgeproxy.io/main");
  });
});

describe("replacingMergePatch", () => {
  it("replaces each named field whole: keys its new value lacks become null, at every depth", () => {
    const current = {
      phase: "Applying",
      diagnosis: { firstRootCause: { reason: "NoEndpoints", resource: { kind: "Service" } }, causes: [1] },
      rollout: { attempt: 1, group: 2, waitingFor: "Service/lb" },
    };
    assert.deepEqual(
      replacingMergePatch(current, {
        diagnosis: { causes: [], diagnosedAt: "t" },
        rollout: { attempt: 2, group: 2 },
      }),
      {
        diagnosis: { firstRootCause: null, causes: [], diagnosedAt: "t" },
        rollout: { attempt: 2, group: 2, waitingFor: null },
      },
    );
    // Nested maps present on both sides are replaced whole too.
    assert.deepEqual(
      replacingMergePatch(current, { diagnosis: { firstRootCause: { reason: "CrashLoopBackOff" } } }),
      { diagnosis: { firstRootCause: { reason: "CrashLoopBackOff", resource: null }, causes: null } },
    );
  });

  it("leaves fields it does not name alone; null removes; scalars, lists and new fields as given", () => {
    assert.deepEqual(replacingMergePatch({ a: { x: 1 }, b: 2 }, { b: null, c: [1], d: { y: 1 } }), {
      b: null,
      c: [1],
      d: { y: 1 },
    });
    assert.deepEqual(replacingMergePatch(undefined, { a: { x: 1 } }), { a: { x: 1 } });
  });
});

describe("threeWayMergePatch", () => {
  it("is empty when the manifest matches the live object", () => {
    const m = { data: { a: "1" }, metadata: { name: "x" } };
    assert.deepEqual(threeWayMergePatch(m, m, { ...m, status: { s: 1 } }), {});
  });

  it("sets changed fields, nulls fields dropped since the last apply, keeps others' fields", () => {
    const original = { data: { a: "1", b: "2" }, spec: { list: [1, 2] } };
    const modified = { data: { a: "10" }, spec: { list: [1] } };
    const current = { data: { a: "1", b: "2", other: "x" }, spec: { list: [1, 2], added: true } };
    assert.deepEqual(threeWayMergePatch(original, modified, current), {
      data: { a: "10", b: null },
      spec: { list: [1] },
    });
  });

  it("restores a field someone changed, and replaces a map that became a scalar", () => {
    assert.deepEqual(threeWayMergePatch({ a: "1" }, { a: "1" }, { a: "2" }), { a: "1" });
    assert.deepEqual(threeWayMergePatch({}, { a: { b: 1 } }, { a: "s" }), { a: { b: 1 } });
    assert.deepEqual(threeWayMergePatch({ a: { b: 1 } }, { a: 5 }, { a: { b: 1 } }), { a: 5 });
  });

  it("compares objects regardless of key order", () => {
    assert.deepEqual(threeWayMergePatch({}, { a: [{ x: 1, y: 2 }] }, { a: [{ y: 2, x: 1 }] }), {});
  });
});

describe("requests", () => {
  it("lists with the client's namespace, selectors and continue tokens", async () => {
    const api = await startFakeApiServer((req) => ({
      body: req.url.includes("continue=")
        ? { kind: "ConfigMapList", metadata: { resourceVersion: "9" }, items: [{ metadata: { name: "b" } }] }
        : {
          kind: "ConfigMapList",
          metadata: { resourceVersion: "7", continue: "tok" },
          items: [{ metadata: { name: "a" } }],
        },
    }));
    const client = new KubeClient(api.config(), { namespace: "team" });
    try {
      const list = await listObjects(client, cm, { labelSelector: "app=web", chunkSize: 1 });
      assert.deepEqual(list.items.map((i) => i.metadata?.name), ["a", "b"]);
      assert.equal(list.metadata?.resourceVersion, "7");
      assert.deepEqual(api.requests.map((r) => r.url), [
        "/api/v1/namespaces/team/configmaps?labelSelector=app%3Dweb&limit=1",
        "/api/v1/namespaces/team/configmaps?labelSelector=app%3Dweb&limit=1&continue=tok",
      ]);
      await listObjects(client, cm, { allNamespaces: true });
      assert.equal(api.requests[2]!.url, "/api/v1/configmaps?limit=500");
    } finally {
      client.close();
      await api.close();
    }
  });

  it("deletes with DeleteOptions", async () => {
    const api = await startFakeApiServer(() => ({ body: { kind: "Status", status: "Success" } }));
    const client = new KubeClient(api.config());
    try {
      await deleteObject(client, gw, "main", {
        namespace: "edge",
        propagationPolicy: "Foreground",
        gracePeriodSeconds: 0,
      });
      const r = api.requests[0]!;
      assert.equal(r.method, "DELETE");
      assert.equal(r.url, "/apis/edgeproxy.io/v1alpha1/namespaces/edge/gateways/main");
      assert.deepEqual(JSON.parse(r.body), {
        apiVersion: "v1",
        kind: "DeleteOptions",
        propagationPolicy: "Foreground",
        gracePeriodSeconds: 0,
      });
    } finally {
      client.close();
      await api.close();
    }
  });
});
