/**
 * dist/edgectl sdwan status|links|topology against a real kube-apiserver: the WAN link CRDs from
 * install-crds, links in two namespaces with statuses written through the status subresource as the
 * agents would, and the golden texts users see (AGE checked against kubectl's formats, then masked).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { ROOT, runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { maskAge } from "./_tables.ts";

const FIXTURE = join(ROOT, "test/edgectl/fixtures/sdwan/links.yaml");

let k8s: KubeApiServer;
let admin: KubeClient;
let work: string;

function edgectl(args: string[], env: Record<string, string> = {}) {
  return runBinary("edgectl", args, { env: { KUBECONFIG: k8s.kubeconfigPath, ...env }, cwd: work });
}

async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await edgectl(args, env);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr, "", `edgectl ${args.join(" ")}`);
  return r.stdout;
}

async function setLinkStatus(namespace: string, name: string, status: Record<string, unknown>) {
  await admin.request({
    method: "PATCH",
    path: `/apis/edgeproxy.io/v1alpha1/namespaces/${namespace}/proxywanlinks/${name}/status`,
    body: { status },
    contentType: "application/merge-patch+json",
  });
}

describe("edgectl sdwan against kube-apiserver", () => {
  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    work = await mkdtemp(join(tmpdir(), "edgectl-sdwan-"));
  });

  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("without the CRDs, sdwan says how to install them (exit 1)", async () => {
    const r = await edgectl(["sdwan", "links"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "error: the server does not serve ProxyWANLink (edgeproxy.io/v1alpha1): install the CRDs with " +
        "`edgectl install-crds`\n",
    );
  });

  test("install the CRDs, apply the links and write their measured status", async () => {
    await ok(["install-crds"]);
    await ok(["apply", "-f", FIXTURE]);
    await setLinkStatus("wan", "hq-mpls", { latencyMs: 12, lossPercent: 0, healthy: true });
    await setLinkStatus("wan", "hq-lte", { latencyMs: 48.5, lossPercent: 0.2, healthy: true });
    // The agent has not flipped the flag yet, but 4.5% loss breaks the 1% SLA.
    await setLinkStatus("wan", "branch-1-dsl", { latencyMs: 35, lossPercent: 4.5, healthy: true });
  });

  test("links: the exact columns, one namespace by -n or EDGECTL_NAMESPACE", async () => {
    const expected =
      `NAMESPACE   NAME           SITE       ROLE      PROVIDER    LATENCY   LOSS   HEALTHY   AGE
wan         branch-1-dsl   branch-1   primary   fastnet     35ms      4.5%   false     <age>
wan         hq-lte         hq         backup    cellco      48.5ms    0.2%   true      <age>
wan         hq-mpls        hq         primary   acme-mpls   12ms      0%     true      <age>
`;
    assert.equal(maskAge(await ok(["sdwan", "links", "-n", "wan"])), expected);
    assert.equal(maskAge(await ok(["sdwan", "links"], { EDGECTL_NAMESPACE: "wan" })), expected);
  });

  test("links -A lists every namespace; an empty namespace says so on stderr with exit 0", async () => {
    assert.equal(
      maskAge(await ok(["sdwan", "links", "-A"])),
      `NAMESPACE   NAME            SITE       ROLE      PROVIDER     LATENCY   LOSS     HEALTHY   AGE
edge        store-9-fiber   store-9    primary   metrofiber   <none>    <none>   <none>    <age>
wan         branch-1-dsl    branch-1   primary   fastnet      35ms      4.5%     false     <age>
wan         hq-lte          hq         backup    cellco       48.5ms    0.2%     true      <age>
wan         hq-mpls         hq         primary   acme-mpls    12ms      0%       true      <age>
`,
    );
    const empty = await edgectl(["sdwan", "links"]);
    assert.deepEqual([empty.code, empty.stdout, empty.stderr], [
      0,
      "",
      "No resources found in default namespace.\n",
    ]);
  });

  test("links -o json|yaml (or EDGECTL_OUTPUT) print one List document", async () => {
    for (
      const [args, env] of [
        [["-o", "json"], {}],
        [["-o", "yaml"], {}],
        [[], { EDGECTL_OUTPUT: "yaml" }],
      ] as const
    ) {
      const out = await ok(["sdwan", "links", "-A", ...args], env);
      const doc = out.startsWith("{") ? JSON.parse(out) : parseYaml(out);
      assert.equal(doc.kind, "List");
      assert.deepEqual(
        doc.items.map((o: { metadata: { name: string } }) => o.metadata.name),
        ["store-9-fiber", "branch-1-dsl", "hq-lte", "hq-mpls"],
      );
      assert.equal(doc.items[1].status.lossPercent, 4.5);
    }
    const bad = await edgectl(["sdwan", "links", "-o", "xml"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /xml/);
  });

  test("status summarizes links by health and names the degraded site", async () => {
    assert.equal(
      await ok(["sdwan", "status", "-n", "wan"]),
      `Sites:     2
Links:     3 (2 healthy, 1 unhealthy, 0 not probed)
Policies:  1
Degraded:  branch-1
Unhealthy links:
  wan/branch-1-dsl (site branch-1): SLA violated: loss 4.5% > 1%
`,
    );
    const all = JSON.parse(await ok(["sdwan", "status", "-A", "-o", "json"]));
    assert.deepEqual(all.links, { total: 4, healthy: 2, unhealthy: 1, unknown: 1 });
    assert.equal(all.sites, 3);
    assert.deepEqual(parseYaml(await ok(["sdwan", "status", "-A", "-o", "yaml"])), all);
  });

  test("topology prints sites and links as a tree with health marks", async () => {
    assert.equal(
      await ok(["sdwan", "topology", "-A"]),
      `SD-WAN overlay: 3 sites, 4 links
├── ✗ branch-1
│   └── ✗ branch-1-dsl (primary, fastnet, 35ms 4.5%) → hq
├── ✓ hq
│   ├── ✓ hq-mpls (primary, acme-mpls, 12ms 0%) → dc-east
│   └── ✓ hq-lte (backup, cellco, 48.5ms 0.2%)
└── ? store-9
    └── ? store-9-fiber (primary, metrofiber)
`,
    );
    const json = JSON.parse(await ok(["sdwan", "topology", "-n", "wan", "-o", "json"]));
    assert.deepEqual(json.sites.map((s: { name: string }) => s.name), ["branch-1", "hq"]);
    assert.equal(json.sites[0].links[0].healthy, false);
  });

  test("help has examples; an unknown subcommand is a usage error (exit 2)", async () => {
    for (const sub of ["status", "links", "topology"]) {
      assert.match(await ok(["sdwan", sub, "--help"]), /Examples:[\s\S]*edgectl sdwan/);
    }
    const r = await edgectl(["sdwan", "tunnels"]);
    assert.equal(r.code, 2);
  });
});
