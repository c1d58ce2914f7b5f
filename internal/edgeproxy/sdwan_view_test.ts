import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "./resources.ts";
import { formatSummary, formatTopology, summarize, topology } from "./sdwan_view.ts";
import { linkHealthy } from "./wan_link.ts";

function link(
  name: string,
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
): KubeObject {
  return {
    apiVersion: "edgeproxy.io/v1alpha1",
    kind: "ProxyWANLink",
    metadata: { name, namespace: "wan" },
    spec,
    ...(status ? { status } : {}),
  };
}

const sla = { maxLatencyMs: 50, maxLossPercent: 1 };
const LINKS = [
  link("hq-mpls", { site: "hq", role: "primary", provider: "acme", sla, remoteSite: "dc" }, {
    latencyMs: 12,
    lossPercent: 0,
    healthy: true,
  }),
  link("hq-lte", { site: "hq", role: "backup", provider: "cell" }),
  // The flag still says healthy, but 5% loss breaks the 1% SLA.
  link("br-dsl", { site: "branch", provider: "isp", sla }, {
    latencyMs: 30.25,
    lossPercent: 5,
    healthy: true,
  }),
  link("br-lte", { site: "branch", role: "backup", provider: "cell" }, { latencyMs: 80, healthy: true }),
];

test("an SLA violation makes a link unhealthy whatever its flag says", () => {
  assert.equal(linkHealthy(LINKS[0]!), true);
  assert.equal(linkHealthy(LINKS[1]!), undefined);
  assert.equal(linkHealthy(LINKS[2]!), false);
  assert.equal(linkHealthy(link("x", { site: "s", sla }, { latencyMs: 51, healthy: true })), false);
  assert.equal(
    linkHealthy(link("x", { site: "s", sla }, { latencyMs: 50, lossPercent: 1, healthy: true })),
    true,
  );
  assert.equal(linkHealthy(link("x", { site: "s" }, { healthy: false })), false);
});

test("status counts links by health and names sites without a healthy primary", () => {
  const s = summarize(LINKS, [{ metadata: { name: "p" } }]);
  assert.deepEqual(s.links, { total: 4, healthy: 2, unhealthy: 1, unknown: 1 });
  assert.deepEqual(s.degradedSites, ["branch"]);
  assert.equal(
    formatSummary(s),
    `Sites:     2
Links:     4 (2 healthy, 1 unhealthy, 1 not probed)
Policies:  1
Degraded:  branch
Unhealthy links:
  wan/br-dsl (site branch): SLA violated: loss 5% > 1%`,
  );
});

test("topology is a tree of sites, primaries first, with health marks", () => {
  assert.equal(
    formatTopology(topology(LINKS)),
    `├── ✓ branch
│   ├── ✗ br-dsl (primary, isp, 30.3ms 5%)
│   └── ✓ br-lte (backup, cell, 80ms)
└── ✓ hq
    ├── ✓ hq-mpls (primary, acme, 12ms 0%) → dc
    └── ? hq-lte (backup, cell)`,
  );
  assert.equal(formatTopology([]), "");
});
