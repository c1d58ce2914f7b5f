import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startFakeApiServer } from "./_fake_api_server.ts";
import { KubeClient } from "./client.ts";
import { type ApiResource, discoverResources, Discovery, editDistance, RestMapper } from "./discovery.ts";
import { NoKindMatchError, UnknownResourceTypeError } from "./errors.ts";

function res(
  group: string,
  version: string,
  resource: string,
  kind: string,
  extra: Partial<ApiResource> = {},
): ApiResource {
  return {
    group,
    version,
    resource,
    kind,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    verbs: ["get", "list"],
    categories: [],
    preferred: true,
    ...extra,
  };
}

const mapper = new RestMapper([
  res("", "v1", "events", "Event", { shortNames: ["ev"] }),
  res("", "v1", "namespaces", "Namespace", { shortNames: ["ns"], namespaced: false }),
  res("apps", "v1", "deployments", "Deployment", { shortNames: ["deploy"] }),
  res("events.k8s.io", "v1", "events", "Event", { shortNames: ["ev"] }),
  res("edgeproxy.io", "v1alpha1", "gateways", "ProxyGateway", { singular: "gateway", shortNames: ["gw"] }),
  res("edgeproxy.io", "v1alpha1", "proxypolicies", "ProxyPolicy", {
    singular: "proxypolicy",
    shortNames: ["pol"],
  }),
  res("gateway.networking.k8s.io", "v1", "gateways", "Gateway", { shortNames: ["gtw"] }),
  res("gateway.networking.k8s.io", "v1beta1", "gateways", "Gateway", { preferred: false }),
  // A short name that is another group's plural loses to the plural.
  res("example.com", "v1", "gadgets", "Gadget", { shortNames: ["deployments"] }),
]);

describe("RestMapper.find", () => {
  const cases: [string, string | undefined][] = [
    ["deployments", "deployments.apps"],
    ["deployment", "deployments.apps"],
    ["deploy", "deployments.apps"],
    ["Deployment", "deployments.apps"],
    ["DEPLOY", "deployments.apps"],
    ["deployments.apps", "deployments.apps"],
    ["deployments.v1.apps", "deployments.apps"],
    ["deployment.apps", "deployments.apps"],
    ["deploy.apps", "deployments.apps"],
    ["gw", "gateways.edgeproxy.io"],
    ["gateway", "gateways.edgeproxy.io"],
    ["proxypolicy", "proxypolicies.edgeproxy.io"],
    ["ProxyGateway", "gateways.edgeproxy.io"],
    // First in discovery order wins among groups, as kubectl's priority mapper does.
    ["gateways", "gateways.edgeproxy.io"],
    ["gateways.gateway.networking.k8s.io", "gateways.gateway.networking.k8s.io"],
    ["Gateway.gateway.networking.k8s.io", "gateways.gateway.networking.k8s.io"],
    ["gateways.v1beta1.gateway.networking.k8s.io", "gateways.gateway.networking.k8s.io"],
    ["events", "events"],
    ["ev", "events"],
    ["events.events.k8s.io", "events.events.k8s.io"],
    ["ns", "namespaces"],
    ["namespaces.v1.", "namespaces"],
    ["gatewayz", undefined],
    ["deployments.v2.apps", undefined],
    ["", undefined],
  ];
  for (const [word, want] of cases) {
    it(`${JSON.stringify(word)} -> ${want}`, () => {
      const r = mapper.find(word);
      assert.equal(r && (r.group ? `${r.resource}.${r.group}` : r.resource), want);
    });
  }
  it("keeps the version asked for", () => {
    assert.equal(mapper.find("gateways.v1beta1.gateway.networking.k8s.io")?.version, "v1beta1");
    assert.equal(mapper.find("gateways.gateway.networking.k8s.io")?.version, "v1");
  });
});

describe("RestMapper.resolve", () => {
  it("suggests the nearest plural, singular or short name", () => {
    const suggestion = (word: string) => {
      try {
        mapper.resolve(word);
        return "resolved";
      } catch (err) {
        assert.ok(err instanceof UnknownResourceTypeError);
        return err.suggestion;
      }
    };
    assert.equal(suggestion("gatways"), "gateways");
    assert.equal(suggestion("deploymnt"), "deployment");
    assert.equal(suggestion("proxypolicys"), "proxypolicy"); // one edit away; "proxypolicies" is two
    assert.equal(suggestion("gwx"), "gw");
    assert.equal(suggestion("certificates"), undefined);
    assert.throws(() => mapper.resolve("gatways"), {
      message: `the server doesn't have a resource type "gatways"; did you mean "gateways"?`,
    });
    assert.throws(() => mapper.resolve("certificates"), {
      message: `the server doesn't have a resource type "certificates"`,
    });
  });
});

describe("RestMapper.forKind", () => {
  it("maps apiVersion and kind to the resource", () => {
    assert.equal(mapper.forKind("edgeproxy.io/v1alpha1", "ProxyPolicy").resource, "proxypolicies");
    assert.equal(mapper.forKind("v1", "Namespace").resource, "namespaces");
    assert.equal(mapper.forKind("gateway.networking.k8s.io/v1beta1", "Gateway").version, "v1beta1");
  });
  it("explains a kind the server does not serve", () => {
    assert.throws(() => mapper.forKind("edgeproxy.io/v1", "ProxyPolicy"), NoKindMatchError);
    assert.throws(() => mapper.forKind("v1", "proxypolicy"), {
      message: `no matches for kind "proxypolicy" in version "v1"; ensure CRDs are installed first`,
    });
  });
});

it("editDistance", () => {
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("gw", "gw"), 0);
});

describe("discoverResources", () => {
  it("walks legacy discovery when the server has no aggregated discovery", async () => {
    const legacy: Record<string, unknown> = {
      "/api": { kind: "APIVersions", versions: ["v1"] },
      "/apis": {
        kind: "APIGroupList",
        groups: [
          {
            name: "apps",
            versions: [{ groupVersion: "apps/v1", version: "v1" }],
            preferredVersion: { groupVersion: "apps/v1", version: "v1" },
          },
          {
            name: "metrics.k8s.io",
            versions: [{ groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }],
          },
        ],
      },
      "/api/v1": {
        kind: "APIResourceList",
        groupVersion: "v1",
        resources: [
          {
            name: "pods",
            singularName: "pod",
            namespaced: true,
            kind: "Pod",
            verbs: ["get"],
            shortNames: ["po"],
          },
          { name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
        ],
      },
      "/apis/apps/v1": {
        kind: "APIResourceList",
        groupVersion: "apps/v1",
        resources: [{
          name: "deployments",
          singularName: "",
          namespaced: true,
          kind: "Deployment",
          verbs: [],
        }],
      },
    };
    const api = await startFakeApiServer((req) =>
      legacy[req.url]
        ? { body: legacy[req.url] }
        : { status: 503, body: { kind: "Status", reason: "ServiceUnavailable" } }
    );
    const client = new KubeClient(api.config());
    try {
      const r = await discoverResources(client);
      assert.equal(r.aggregated, false);
      assert.deepEqual(r.failedGroupVersions, ["metrics.k8s.io/v1beta1"]);
      assert.deepEqual(r.resources.map((x) => `${x.resource}.${x.group}/${x.version}:${x.singular}`), [
        "pods./v1:pod",
        "deployments.apps/v1:deployment",
      ]);
      assert.deepEqual(
        api.requests[0]!.headers.accept?.split(",")[0],
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
      );
    } finally {
      client.close();
      await api.close();
    }
  });

  it("reads aggregated discovery, preferred version first; Discovery refreshes once on a miss", async () => {
    let withWidgets = false;
    const group = (name: string, versions: { version: string; resources: unknown[] }[]) => ({
      metadata: { name },
      versions,
    });
    const api = await startFakeApiServer((req) => {
      const items = req.url === "/api"
        ? [
          group("", [{
            version: "v1",
            resources: [{
              resource: "configmaps",
              responseKind: { kind: "ConfigMap" },
              scope: "Namespaced",
              singularResource: "configmap",
              shortNames: ["cm"],
              verbs: ["get"],
            }],
          }]),
        ]
        : [
          group("example.com", [
            ...(withWidgets
              ? [{
                version: "v2",
                resources: [{
                  resource: "widgets",
                  responseKind: { kind: "Widget" },
                  scope: "Cluster",
                  singularResource: "widget",
                  shortNames: ["wd"],
                }],
              }]
              : []),
            {
              version: "v1",
              resources: [{
                resource: "gadgets",
                responseKind: { kind: "Gadget" },
                scope: "Namespaced",
                singularResource: "gadget",
              }],
            },
          ]),
        ];
      return {
        contentType: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        body: { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", items },
      };
    });
    const client = new KubeClient(api.config());
    try {
      const d = new Discovery(client);
      const m = await d.mapper();
      assert.deepEqual(m.resources.map((r) => [r.resource, r.group, r.version, r.preferred, r.namespaced]), [
        ["configmaps", "", "v1", true, true],
        ["gadgets", "example.com", "v1", true, true],
      ]);
      assert.equal((await d.resolve("cm")).kind, "ConfigMap");
      assert.equal(api.requests.length, 2, "cached");
      withWidgets = true;
      const wd = await d.resolve("wd");
      assert.deepEqual([wd.resource, wd.version, wd.namespaced, wd.preferred], [
        "widgets",
        "v2",
        false,
        true,
      ]);
      assert.equal(api.requests.length, 4, "refreshed once");
      assert.equal((await d.forKind("example.com/v1", "Gadget")).preferred, false);
      await assert.rejects(d.resolve("nothing"), UnknownResourceTypeError);
    } finally {
      client.close();
      await api.close();
    }
  });
});
