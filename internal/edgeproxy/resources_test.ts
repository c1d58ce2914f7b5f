import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { ASSETS } from "../../scripts/lib/tools.ts";
import { CRD_DIR, CRD_FILES, loadCrds } from "./crds.ts";
import {
  API_VERSION,
  GROUP,
  type KubeObject,
  lookupResourceType,
  nearestName,
  resolveResourceTypes,
  RESOURCE_TYPES,
  resourceTypeOfKind,
  UnknownTypeError,
} from "./resources.ts";
import { resourceTable } from "./resource_table.ts";
import { listDocument } from "../k8s/mod.ts";
import { formatTable } from "../cli/mod.ts";

test("every CRD file is in the repo, embedded in the binary and loaded", () => {
  assert.deepEqual(readdirSync(CRD_DIR).sort(), [...CRD_FILES].sort());
  const crds = ASSETS.edgectl?.filter((a) => a.startsWith("crds/")).map((a) => a.split("/").pop());
  assert.deepEqual(crds?.sort(), [...CRD_FILES].sort());
  // Besides the CRDs, only the dashboard's bundle (edgectl web).
  assert.deepEqual(
    ASSETS.edgectl?.filter((a) => !a.startsWith("crds/")),
    [".cache/web/edgectl/edgectl.js", ".cache/web/edgectl/edgectl.css"],
  );
});

test("the CRDs declare exactly the kinds, plurals and short names of the resource table", async () => {
  const crds = await loadCrds();
  assert.equal(crds.length, RESOURCE_TYPES.length);
  for (const crd of crds) {
    const spec = crd.spec as {
      group: string;
      names: { kind: string; plural: string; singular: string; shortNames?: string[]; categories: string[] };
      scope: string;
      versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: object } }[];
    };
    const type = resourceTypeOfKind(spec.names.kind);
    assert.ok(type, spec.names.kind);
    assert.equal(crd.metadata?.name, `${type.plural}.${GROUP}`);
    assert.equal(spec.group, GROUP);
    assert.equal(spec.names.plural, type.plural);
    assert.equal(spec.names.singular, type.kind.toLowerCase());
    assert.deepEqual(spec.names.shortNames ?? [], [...type.shortNames]);
    for (const short of type.shortNames) assert.ok(type.aliases.includes(short), short);
    assert.deepEqual(spec.names.categories, ["edgeproxy"]);
    assert.equal(spec.scope, "Namespaced");
    assert.deepEqual(spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, true]]);
    assert.deepEqual(spec.versions[0]!.subresources?.status, {});
  }
});

test("short names do not collide with the built-in resources' short names", () => {
  const builtIn = new Set(
    "cs cm ep ev limits ns no pvc pv po pod rc quota sa svc crd crds csr deploy ds rs sts hpa cj ing netpol pdb pc psp sc"
      .split(" "),
  );
  for (const type of RESOURCE_TYPES) for (const s of type.shortNames) assert.ok(!builtIn.has(s), s);
});

test("every alias of section 2, plurals, kinds and group-qualified names resolve", () => {
  const expected: Record<string, string[]> = {
    ProxyGateway: ["gateways", "gateway", "gw", "proxygateways", "ProxyGateway", "gw.edgeproxy.io"],
    ProxyRoute: ["routes", "route", "rt", "proxyroutes.edgeproxy.io"],
    ProxyBackend: ["backends", "backend", "be"],
    ProxyVIP: ["vips", "vip", "VIPS"],
    ProxyPolicy: ["policies", "policy", "pol", "proxypolicies"],
    TCPRoute: ["tcproutes"],
    TLSRoute: ["tlsroutes"],
    GRPCRoute: ["grpcroutes"],
    IPPool: ["ippools", "ippool"],
    WASMPlugin: ["wasmplugins", "wasm"],
    Certificate: ["certificates", "cert"],
  };
  for (const [kind, words] of Object.entries(expected)) {
    for (const word of words) assert.equal(lookupResourceType(word)?.kind, kind, word);
  }
  assert.equal(lookupResourceType("pods"), undefined);
});

test("comma-separated types resolve in order, without duplicates", () => {
  assert.deepEqual(resolveResourceTypes("gw,routes,gateway").map((t) => t.kind), [
    "ProxyGateway",
    "ProxyRoute",
  ]);
});

test("an unknown type names the nearest known name", () => {
  assert.equal(nearestName("gatways"), "gateways");
  assert.equal(nearestName("rout"), "route");
  assert.equal(nearestName("certs"), "cert");
  assert.equal(nearestName("deployments"), undefined);
  assert.throws(() => resolveResourceTypes("gw,polices"), (err: unknown) => {
    assert.ok(err instanceof UnknownTypeError);
    assert.match(
      err.message,
      /^unknown resource type "polices" \(did you mean "policies"\?\); known types: gateways, routes/,
    );
    return true;
  });
});

const now = new Date("2026-11-22T12:00:00Z");
const meta = (name: string, ageSeconds: number, namespace = "default") => ({
  name,
  namespace,
  creationTimestamp: new Date(now.getTime() - ageSeconds * 1000).toISOString().replace(/\.\d+Z$/, "Z"),
});
const readyCondition = (status: string) => ({ conditions: [{ type: "Ready", status, reason: "X" }] });

function table(kind: string, objects: KubeObject[], allNamespaces = false): string {
  const { headers, rows } = resourceTable(resourceTypeOfKind(kind)!, objects, { allNamespaces, now });
  return formatTable(headers, rows);
}

test("gateways: VIP, number of listeners, Ready condition", () => {
  assert.equal(
    table("ProxyGateway", [
      {
        metadata: meta("main", 330),
        spec: { vipRef: "public", listeners: [{ name: "a" }, { name: "b" }] },
        status: readyCondition("True"),
      },
      { metadata: meta("internal-gateway", 50 * 3600), spec: { listeners: [] } },
    ]),
    "NAME               VIP      LISTENERS   READY    AGE\n" +
      "main               public   2           True     5m30s\n" +
      "internal-gateway   <none>   0           <none>   2d2h\n",
  );
});

test("routes, backends, vips and policies with -A", () => {
  assert.equal(
    table("ProxyRoute", [{
      metadata: meta("web", 10, "shop"),
      spec: { hostnames: ["a.example", "b.example"], rules: [{}, {}, {}] },
      status: readyCondition("False"),
    }], true),
    "NAMESPACE   NAME   HOSTNAMES             RULES   READY   AGE\nshop        web    a.example,b.example   3       False   10s\n",
  );
  assert.equal(
    table("ProxyBackend", [{
      metadata: meta("api", 3600),
      spec: { serviceRef: { name: "api", port: 8080 }, lbPolicy: "RoundRobin" },
      status: { endpoints: 3, ...readyCondition("True") },
    }, { metadata: meta("new", 1), spec: { serviceRef: { name: "new", port: 80 } } }]),
    "NAME   SERVICE    LB POLICY    ENDPOINTS   READY    AGE\n" +
      "api    api:8080   RoundRobin   3           True     60m\n" +
      "new    new:80     <none>       <none>      <none>   1s\n",
  );
  assert.equal(
    table("ProxyVIP", [{
      metadata: meta("public", 8 * 86400),
      spec: { address: "10.0.0.10/32", mode: "L2" },
    }]),
    "NAME     VIP            MODE   READY    AGE\npublic   10.0.0.10/32   L2     <none>   8d\n",
  );
  assert.equal(
    table("ProxyPolicy", [
      {
        kind: "ProxyPolicy",
        metadata: meta("limit", 60),
        spec: { type: "RateLimit", targetRef: { kind: "ProxyRoute", name: "web" } },
      },
      {
        kind: "WASMPlugin",
        metadata: meta("auth", 60),
        spec: { targetRef: { kind: "ProxyGateway", name: "main" } },
      },
    ]),
    "NAME    TYPE         TARGET              AGE\nlimit   RateLimit    ProxyRoute/web      60s\nauth    WASMPlugin   ProxyGateway/main   60s\n",
  );
  assert.equal(
    table("Certificate", [{ metadata: meta("tls", 60) }]),
    "NAME   READY    AGE\ntls    <none>   60s\n",
  );
});

test("lists print as one kubectl List document, without managedFields", () => {
  const doc = listDocument([{
    apiVersion: API_VERSION,
    kind: "ProxyVIP",
    metadata: { name: "a", managedFields: [] },
  }]);
  assert.deepEqual(doc, {
    apiVersion: "v1",
    items: [{ apiVersion: API_VERSION, kind: "ProxyVIP", metadata: { name: "a" } }],
    kind: "List",
    metadata: { resourceVersion: "" },
  });
  assert.equal(JSON.stringify(Object.keys(doc)), '["apiVersion","items","kind","metadata"]');
});
