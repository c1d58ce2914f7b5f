/**
 * dist/edgectl web in Chromium against real parts: kube-apiserver with the edgeproxy.io CRDs and kwok
 * Pods whose logs hold access records, Debian's Prometheus scraping an exporter of the documented
 * metrics, Jaeger (built from its Go module) holding one trace, and for sign-in a local OpenID Connect
 * provider that speaks the protocol (test/harness/oidc_provider.ts). Three servers: read-write with the
 * kubeconfig's identity, --read-only, and TLS + OIDC where the signed-in user is impersonated and
 * RBAC limits them to reads. Screenshots go to test-artifacts/screenshots/edgectl-web-*.png.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { freePort } from "../harness/ports.ts";
import { isKubeApiError, KubeClient } from "../../internal/k8s/mod.ts";
import { baseEnv, binaryPath, parseRecords, runBinary } from "../harness/binary.ts";
import { launchBrowser, watchedPage } from "../harness/browser.ts";
import { checkScreens } from "../harness/screens.ts";
import { type JaegerServer, sendOtlpJson, startJaeger } from "../harness/jaeger.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { type OidcProvider, startOidcProvider } from "../harness/oidc_provider.ts";
import { type PrometheusServer, startPrometheus } from "../harness/prometheus.ts";
import { servingCertificate } from "../harness/serving_cert.ts";

const NS = "shop";
const PROXY_NS = "edge-system";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

let k8s: KubeApiServer;
let admin: KubeClient;
let prom: PrometheusServer;
let exporter: Server;
let jaeger: JaegerServer;
let browser: Browser;
let tmp: string;
const started = Date.now();

const MANIFESTS = `
apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: edgeproxy.io/v1alpha1
kind: ProxyGateway
metadata: {name: main, namespace: ${NS}}
spec:
  vipRef: public
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: edgeproxy.io/v1alpha1
kind: ProxyRoute
metadata: {name: web, namespace: ${NS}}
spec:
  hostnames: [shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /}}]
      backendRef: {name: web}
    - matches: [{path: {type: PathPrefix, value: /api}}]
      backendRef: {name: api}
---
apiVersion: edgeproxy.io/v1alpha1
kind: ProxyBackend
metadata: {name: web, namespace: ${NS}}
spec:
  serviceRef: {name: web, port: 8080}
  lbPolicy: RoundRobin
`;

const API_BACKEND = `apiVersion: edgeproxy.io/v1alpha1
kind: ProxyBackend
metadata:
  name: api
  namespace: ${NS}
spec:
  serviceRef: {name: api, port: 9000}
  lbPolicy: LeastConn
`;

async function setStatus(plural: string, name: string, conditions: unknown[]) {
  await admin.request({
    method: "PATCH",
    path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/${plural}/${name}/status`,
    body: { status: { conditions } },
    contentType: "application/merge-patch+json",
  });
}

const cond = (status: string, reason: string, message: string) => ({
  type: "Ready",
  status,
  reason,
  message,
  lastTransitionTime: "2026-11-01T10:00:00Z",
});

/** shop/web: 10 requests/s of 200 and 1 of 503, every request 20 ms. */
function exposition(): string {
  const t = (Date.now() - started) / 1000;
  const lines = ["# TYPE edgeproxy_http_requests_total counter"];
  const series = [["200", 10], ["503", 1]] as const;
  for (const [code, perSecond] of series) {
    lines.push(
      `edgeproxy_http_requests_total{node="n0",gateway="shop/main",route="shop/web",backend="shop/web",method="GET",code="${code}"} ${
        perSecond * t
      }`,
    );
  }
  lines.push("# TYPE edgeproxy_http_request_duration_seconds histogram");
  for (const [code, perSecond] of series) {
    const l = `node="n0",gateway="shop/main",route="shop/web",backend="shop/web",code="${code}"`;
    for (const le of ["0.01", "0.05", "+Inf"]) {
      lines.push(
        `edgeproxy_http_request_duration_seconds_bucket{${l},le="${le}"} ${
          le === "0.01" ? 0 : perSecond * t
        }`,
      );
    }
    lines.push(`edgeproxy_http_request_duration_seconds_count{${l}} ${perSecond * t}`);
    lines.push(`edgeproxy_http_request_duration_seconds_sum{${l}} ${perSecond * t * 0.02}`);
  }
  return lines.join("\n") + "\n";
}

async function startProxyPods() {
  await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: PROXY_NS } } });
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${PROXY_NS}/pods`,
    body: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "edge-agent-a",
        namespace: PROXY_NS,
        labels: { "app.kubernetes.io/name": "edgeproxy", "app.kubernetes.io/component": "agent" },
      },
      spec: { nodeName: k8s.nodes[0], containers: [{ name: "agent", image: "example.com/agent:1" }] },
    },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const p = await admin.request<{ status: { phase?: string } }>({
      path: `/api/v1/namespaces/${PROXY_NS}/pods/edge-agent-a`,
    });
    if (p.status.phase === "Running") break;
    if (Date.now() > deadline) throw new Error("agent Pod not Running after 30 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000);
  const access = (s: number, fields: Record<string, unknown>) => ({
    time: at(s),
    text: JSON.stringify({ time: at(s).toISOString(), level: "info", msg: "access", ...fields }),
  });
  await k8s.setPodLogs({
    namespace: PROXY_NS,
    pod: "edge-agent-a",
    lines: [
      { time: at(0), text: '{"level":"info","msg":"config applied","generation":4}' },
      access(1, {
        gateway: "shop/main",
        route: "shop/web",
        method: "GET",
        host: "shop.example.com",
        path: "/",
        status: 200,
        duration_ms: 12.5,
      }),
      access(2, {
        gateway: "shop/main",
        route: "shop/web",
        method: "GET",
        host: "shop.example.com",
        path: "/cart",
        status: 503,
        duration_ms: 30.1,
      }),
    ],
  });
}

async function storeTrace() {
  const ns = BigInt(Date.now() - 5 * 60_000) * 1_000_000n;
  const span = (id: string, parent: string | undefined, name: string, offsetMs: number, ms: number) => ({
    traceId: TRACE_ID,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 2,
    startTimeUnixNano: String(ns + BigInt(offsetMs) * 1_000_000n),
    endTimeUnixNano: String(ns + BigInt(offsetMs + ms) * 1_000_000n),
    attributes: [],
  });
  await sendOtlpJson(jaeger, {
    resourceSpans: [{
      resource: { attributes: [{ key: "service.name", value: { stringValue: "edge-agent" } }] },
      scopeSpans: [{
        scope: { name: "edgectl-web-test" },
        spans: [
          span("00000000000000a1", undefined, "GET /cart", 0, 42),
          span("00000000000000a2", "00000000000000a1", "upstream", 2, 30),
        ],
      }],
    }],
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await fetch(`${jaeger.queryUrl}/api/traces/${TRACE_ID}`).then((r) => r.json());
    if (found.data?.[0]?.spans?.length === 2) break;
    if (Date.now() > deadline) throw new Error(`trace not stored after 20 s:\n${jaeger.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "edgectl-web-"));
  exporter = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    res.end(exposition());
  });
  const exporterPort = await freePort();
  await new Promise<void>((r) => exporter.listen(exporterPort, "127.0.0.1", r));
  const [k, p, j, b] = await Promise.all([
    startKubeApiServer({ workloads: true }),
    startPrometheus({ targets: [`127.0.0.1:${exporterPort}`] }),
    startJaeger(),
    launchBrowser(),
  ]);
  [k8s, prom, jaeger, browser] = [k, p, j, b];
  admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  const crds = await runBinary("edgectl", ["install-crds"], { env: { KUBECONFIG: k8s.kubeconfigPath } });
  assert.equal(crds.code, 0, crds.stderr);
  const file = join(tmp, "manifests.yaml");
  await import("node:fs/promises").then((fs) => fs.writeFile(file, MANIFESTS));
  const applied = await runBinary("edgectl", ["apply", "-f", file], {
    env: { KUBECONFIG: k8s.kubeconfigPath },
  });
  assert.equal(applied.code, 0, applied.stderr);
  await setStatus("proxygateways", "main", [cond("True", "Programmed", "accepted by 1 agent")]);
  await setStatus("proxyroutes", "web", [cond("False", "BackendNotFound", "backend api does not exist")]);
  await Promise.all([startProxyPods(), storeTrace()]);
});

after(async () => {
  await browser?.close();
  await Promise.all([k8s?.stop(), prom?.stop(), jaeger?.stop()]);
  await new Promise((r) => exporter?.close(r));
  await rm(tmp, { recursive: true, force: true });
});

interface Web {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `edgectl web` and waits for its "edgectl web ready" log line (works for https too). */
async function startWeb(args: string[], env: Record<string, string> = {}): Promise<Web> {
  const child: ChildProcess = spawn(binaryPath("edgectl"), [
    "web",
    "--prometheus-url",
    prom.url,
    "--trace-endpoint",
    jaeger.queryUrl,
    "--proxy-namespace",
    PROXY_NS,
    ...args,
  ], { env: baseEnv({ KUBECONFIG: k8s.kubeconfigPath, ...env }), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((r) => child.on("close", () => r()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const records = parseRecords(output);
    const listening = records.find((r) => r.msg === "listening");
    if (listening && records.some((r) => r.msg === "edgectl web ready")) {
      return {
        url: String(listening.url).replace("0.0.0.0", "127.0.0.1"),
        output: () => output,
        async stop() {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`edgectl web did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function exists(plural: string, name: string): Promise<boolean> {
  try {
    await admin.request({ path: `/apis/edgeproxy.io/v1alpha1/namespaces/${NS}/${plural}/${name}` });
    return true;
  } catch (err) {
    if (isKubeApiError(err, "NotFound")) return false;
    throw err;
  }
}

describe("edgectl web, read-write with the kubeconfig's identity", () => {
  let web: Web;
  before(async () => {
    web = await startWeb(["--listen", "127.0.0.1:0"]);
  });
  after(async () => await web?.stop());

  test("the page is served under a strict CSP; the API answers JSON", async () => {
    const res = await fetch(`${web.url}/ui/`);
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(await res.text(), /<script type="module" src="\/ui\/assets\/edgectl\.[0-9a-f]{12}\.js">/);
    const session = await (await fetch(`${web.url}/api/session`)).json();
    assert.equal(session.readOnly, false);
    assert.equal(session.auth, "kubeconfig");
  });

  test("resources, conditions, topology, metrics, traces and access log in Chromium", async () => {
    const w = await watchedPage(browser, web.url);
    const { page } = w;
    await page.goto("/ui/");
    const gateway = page.locator('section[data-kind="ProxyGateway"] tr[data-name="shop/main"]');
    await gateway.waitFor({ timeout: 15_000 });
    assert.match(await gateway.innerText(), /public[\s\S]*True[\s\S]*Ready=True \(Programmed\)/);
    const route = page.locator('section[data-kind="ProxyRoute"] tr[data-name="shop/web"]');
    assert.match(await route.innerText(), /shop\.example\.com[\s\S]*False[\s\S]*BackendNotFound/);
    // Badges are coloured by the Ready condition's status, one meaning in every app: True green,
    // False red, no status grey (never the amber of a warning).
    const badge = (row: typeof route) => row.locator("td .badge").first();
    assert.match(await badge(gateway).getAttribute("class") ?? "", /badge-ok/);
    assert.match(await badge(route).getAttribute("class") ?? "", /badge-danger/);
    const { kinds } = await (await fetch(`${web.url}/api/resources`)).json() as {
      kinds: { kind: string; items: { namespace: string; name: string; ready?: string }[] }[];
    };
    const all = kinds.flatMap((k) => k.items.map((i) => ({ ...i, kind: k.kind })));
    const silent = all.find((i) => i.ready === undefined);
    assert.ok(silent, "a fixture object without a Ready condition");
    const silentBadge = badge(
      page.locator(`section[data-kind="${silent.kind}"] tr[data-name="${silent.namespace}/${silent.name}"]`),
    );
    assert.equal(await silentBadge.innerText(), "no status");
    assert.match(await silentBadge.getAttribute("class") ?? "", /badge-neutral/);
    // The summary counts what is not ready; filters narrow the tables.
    const notReady = all.filter((i) => i.ready === "False").length;
    assert.ok(notReady > 0);
    assert.match(
      await page.getByTestId("summary").innerText(),
      new RegExp(`${all.length} objects[\\s\\S]*${notReady} not ready`),
    );
    await page.getByLabel("Kind").selectOption("ProxyRoute");
    assert.equal(await page.locator("section[data-kind]").count(), 1);
    assert.match(await page.getByTestId("summary").innerText(), /not ready/);
    await page.getByLabel("Kind").selectOption("");
    await page.getByLabel("Namespace").selectOption(NS);
    const names = await page.locator("tr[data-name]").evaluateAll((rows) =>
      rows.map((r) => r.getAttribute("data-name"))
    );
    assert.ok(names.length > 0 && names.every((n) => n?.startsWith(`${NS}/`)), names.join(" "));
    await page.getByLabel("Namespace").selectOption("");
    await w.screenshot("edgectl-web-resources");

    await page.goto("/ui/#/topology");
    await page.locator('li[data-edge="shop/web -> shop/web"]').waitFor();
    assert.match(
      await page.locator('li[data-edge="shop/web -> shop/api"]').innerText(),
      /no such ProxyBackend/,
    );
    await w.screenshot("edgectl-web-topology");

    // Prometheus needs a few scrapes before a rate exists: reload until the chart has its series.
    await page.goto("/ui/#/metrics");
    const legend = page.locator('figure[data-chart="Requests per second by route"] .legend li');
    const deadline = Date.now() + 30_000;
    while ((await legend.count()) === 0) {
      if (Date.now() > deadline) throw new Error(`no metrics after 30 s:\n${web.output()}`);
      await new Promise((r) => setTimeout(r, 1000));
      await page.reload();
      await page.locator("figure.chart").first().waitFor();
    }
    assert.match(await legend.first().innerText(), /shop\/web/);
    // Hovering reads the value at that moment.
    const rpsChart = page.locator('figure[data-chart="Requests per second by route"]');
    await rpsChart.locator("svg").hover();
    await rpsChart.locator("[data-crosshair]").waitFor();
    assert.match(await rpsChart.locator(".chart-readout").innerText(), /^At /);
    assert.match(await legend.first().innerText(), /shop\/web \d/);
    const metrics = await (await fetch(`${web.url}/api/metrics?minutes=5`)).json();
    const rps = metrics.rps.find((s: { label: string }) => s.label === "shop/web").points.at(-1)[1];
    // rate() over 1m with only seconds of samples is lower than 11/s; the ratio of two rates is not.
    assert.ok(rps > 0 && rps < 14, `requests/s of shop/web: ${rps}`);
    const ratio = metrics.errorRatio[0].points.at(-1)[1];
    assert.ok(Math.abs(ratio - 1 / 11) < 0.01, `5xx ratio: ${ratio}`);
    await w.screenshot("edgectl-web-metrics");

    await page.goto("/ui/#/traces");
    const trace = page.locator(`tr[data-trace="${TRACE_ID}"]`);
    await trace.waitFor();
    assert.match(await trace.innerText(), /GET \/cart[\s\S]*edge-agent[\s\S]*42 ms[\s\S]*2/);
    await trace.getByRole("button", { name: TRACE_ID }).click();
    const tree = page.locator("pre.span-tree");
    await tree.getByText("upstream [edge-agent]").waitFor();
    assert.match(
      await tree.innerText(),
      /GET \/cart \[edge-agent\] 42\.00ms[\s\S]*└─ upstream \[edge-agent\] 30\.00ms \+2\.00ms/m,
    );
    await w.screenshot("edgectl-web-traces");

    await page.goto("/ui/#/access");
    const rows = page.locator("main tbody tr");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2);
    // Newest first: the 503 on /cart.
    assert.match(await rows.first().innerText(), /shop\/web[\s\S]*\/cart[\s\S]*503/);
    await w.screenshot("edgectl-web-access");
    w.assertClean();
    await w.context.close();
  });

  test("every screen at 1280 and 390 px: no sideways scroll, no console error, no serious axe violation", async () => {
    const view = (hash: string, ready: (p: Page) => Promise<void>) => async (p: Page) => {
      await p.goto(`/ui/#/${hash}`);
      await ready(p);
    };
    await checkScreens(browser, web.url, "edgectl", [
      {
        name: "resources",
        open: view("resources", (p) => p.locator('tr[data-name="shop/main"]').waitFor({ timeout: 15_000 })),
      },
      { name: "topology", open: view("topology", (p) => p.locator("li[data-edge]").first().waitFor()) },
      { name: "metrics", open: view("metrics", (p) => p.locator("figure.chart").first().waitFor()) },
      { name: "traces", open: view("traces", (p) => p.locator(`tr[data-trace="${TRACE_ID}"]`).waitFor()) },
      { name: "access", open: view("access", (p) => p.locator("main tbody tr").first().waitFor()) },
      { name: "apply", open: view("apply", (p) => p.locator("#manifest").waitFor()) },
      {
        name: "delete-dialog",
        open: async (p) => {
          await view("resources", (p) => p.locator('tr[data-name="shop/main"]').waitFor())(p);
          await p.getByRole("button", { name: "Actions for ProxyGateway shop/main" }).click();
          await p.getByRole("menuitem", { name: "Delete…" }).click();
          await p.getByRole("dialog", { name: "Delete ProxyGateway shop/main?" }).waitFor();
        },
      },
    ]);
  });

  test("apply and delete from the page change the cluster", async () => {
    const w = await watchedPage(browser, web.url);
    const { page } = w;
    await page.goto("/ui/#/apply");
    await page.locator("#manifest").fill(API_BACKEND);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.locator(".results li.ok", { hasText: "proxybackend shop/api: created" }).waitFor();
    assert.ok(await exists("proxybackends", "api"));
    await w.screenshot("edgectl-web-apply");
    const { topology } = await (await fetch(`${web.url}/api/resources`)).json();
    assert.deepEqual(
      topology.find((e: { backend: string }) => e.backend === "shop/api"),
      { route: "shop/web", backend: "shop/api", exists: true },
    );

    await page.goto("/ui/#/resources");
    const row = page.locator('section[data-kind="ProxyBackend"] tr[data-name="shop/api"]');
    await row.waitFor();
    // Delete sits in the row's menu and asks first; Cancel changes nothing.
    await row.getByRole("button", { name: "Actions for ProxyBackend shop/api" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete ProxyBackend shop/api?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    assert.ok(await exists("proxybackends", "api"));
    await row.getByRole("button", { name: "Actions for ProxyBackend shop/api" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await row.waitFor({ state: "detached" });
    assert.equal(await exists("proxybackends", "api"), false);
    w.assertClean();
    await w.context.close();
  });

  test("cross-site writes are refused and change nothing", async () => {
    const body = JSON.stringify({ kind: "ProxyBackend", namespace: NS, name: "web" });
    for (
      const headers of [
        { origin: "http://evil.example" } as Record<string, string>,
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site", origin: "http://127.0.0.1:1" },
      ]
    ) {
      const res = await fetch(`${web.url}/api/delete`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.deepEqual(await res.json(), { error: "cross-site request refused" });
    }
    assert.ok(await exists("proxybackends", "web"));
  });

  test("bad input is a 400 with issues and changes nothing", async () => {
    const res = await fetch(`${web.url}/api/apply`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        manifest: "kind: ProxyBackend\napiVersion: edgeproxy.io/v1alpha1\nmetadata: {}\n",
      }),
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, /metadata\.name is required/);
    const bad = await fetch(`${web.url}/api/delete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "" }),
    });
    assert.equal(bad.status, 400);
    assert.ok(Array.isArray((await bad.json()).issues));
  });
});

describe("edgectl web --read-only", () => {
  let web: Web;
  before(async () => {
    web = await startWeb(["--address", "127.0.0.1:0", "--read-only"]);
  });
  after(async () => await web?.stop());

  test("shows everything, offers no changes, and refuses writes", async () => {
    const w = await watchedPage(browser, web.url);
    const { page } = w;
    await page.goto("/ui/");
    await page.locator('section[data-kind="ProxyGateway"] tr[data-name="shop/main"]').waitFor();
    assert.equal(await page.getByRole("button", { name: "Delete" }).count(), 0);
    assert.equal(await page.getByRole("button", { name: /^Actions for/ }).count(), 0);
    assert.equal(await page.getByRole("link", { name: "Apply" }).count(), 0);
    assert.match(await page.locator("header").innerText(), /read-only/);
    await w.screenshot("edgectl-web-read-only");
    w.assertClean();
    await w.context.close();
    for (
      const [path, body] of [
        ["/api/apply", { manifest: API_BACKEND }],
        ["/api/delete", { kind: "ProxyBackend", namespace: NS, name: "web" }],
      ] as const
    ) {
      const res = await fetch(`${web.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 403, path);
    }
    assert.equal(await exists("proxybackends", "api"), false);
    assert.ok(await exists("proxybackends", "web"));
  });
});

describe("edgectl web over TLS with OIDC sign-in", () => {
  let web: Web;
  let idp: OidcProvider;
  let base: string;
  before(async () => {
    const port = await freePort();
    base = `https://127.0.0.1:${port}`;
    idp = await startOidcProvider({
      clientId: "edgectl",
      clientSecret: "s3cret-client",
      redirectUris: [`${base}/auth/callback`],
    });
    idp.nextUser = { sub: "u-1", email: "alice@example.com", groups: ["edge-viewers"] };
    // Alice's group may read the proxy's resources and Pod logs, and nothing else.
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: {
        metadata: { name: "edge-viewer" },
        rules: [
          { apiGroups: ["edgeproxy.io"], resources: ["*"], verbs: ["get", "list"] },
          { apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get", "list"] },
        ],
      },
    });
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        metadata: { name: "edge-viewers" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edge-viewer" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "edge-viewers" }],
      },
    });
    const cert = await servingCertificate(tmp, "127.0.0.1");
    web = await startWeb([
      "--listen",
      `127.0.0.1:${port}`,
      "--tls-cert",
      cert.certFile,
      "--tls-key",
      cert.keyFile,
      "--oidc-issuer",
      idp.issuer,
      "--oidc-client-id",
      "edgectl",
    ], { EDGECTL_OIDC_CLIENT_SECRET: "s3cret-client" });
    assert.equal(web.url, base);
  });
  after(async () => {
    await web?.stop();
    await idp?.stop();
  });

  test("signs in with the code flow (PKCE) and acts as the user: reads allowed, writes forbidden by RBAC", async () => {
    const w = await watchedPage(browser, base, { ignoreHTTPSErrors: true });
    const { page, context } = w;
    // Before sign-in the API refuses, and the page offers sign-in.
    w.expectHttpError("/api/resources", 401);
    assert.equal((await context.request.get(`${base}/api/resources`)).status(), 401);
    await page.goto("/ui/");
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.locator("#user", { hasText: "alice@example.com" }).waitFor({ timeout: 15_000 });
    assert.ok(page.url().startsWith(`${base}/ui/`), page.url());
    assert.deepEqual(idp.tokenRequests.map((r) => r.pkce), [true]);
    const session = (await context.cookies()).find((c) => c.name === "edgectl_session");
    assert.ok(session?.httpOnly && session.secure && session.sameSite === "Lax", JSON.stringify(session));

    await page.locator('section[data-kind="ProxyGateway"] tr[data-name="shop/main"]').waitFor();
    await w.screenshot("edgectl-web-oidc-signed-in");

    await page.goto("/ui/#/apply");
    await page.locator("#manifest").fill(API_BACKEND);
    w.expectHttpError("/api/apply", 422);
    await page.getByRole("button", { name: "Apply" }).click();
    const result = page.locator(".results li.error");
    await result.waitFor();
    assert.match(await result.innerText(), /forbidden[\s\S]*alice@example\.com/i);
    assert.equal(await exists("proxybackends", "api"), false);
    await w.screenshot("edgectl-web-oidc-forbidden");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    w.assertClean();
    await context.close();
    // The secret never reaches the log.
    assert.doesNotMatch(web.output(), /s3cret-client/);
  });

  test("the sign-in screen at 1280 and 390 px: no sideways scroll, no console error, no serious axe violation", async () => {
    await checkScreens(browser, web.url, "edgectl", [{
      name: "sign-in",
      open: async (p) => {
        await p.goto("/ui/");
        await p.getByRole("link", { name: "Sign in" }).waitFor();
      },
    }], { ignoreHTTPSErrors: true });
  });

  test("an ID token with the wrong nonce signs nobody in", async () => {
    idp.misbehave = "wrong-nonce";
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const res = await page.goto(`${base}/auth/login`);
      assert.equal(res?.status(), 401);
      assert.match(await page.locator("body").innerText(), /nonce/);
      assert.equal((await context.cookies()).some((c) => c.name === "edgectl_session"), false);
      await context.close();
    } finally {
      idp.misbehave = undefined;
    }
  });

  test("the certificate is the one given", async () => {
    const pem = await readFile(join(tmp, "tls.crt"), "utf8");
    const { request } = await import("node:https");
    const served = await new Promise<string>((resolve, reject) => {
      const req = request(`${base}/healthz`, { ca: pem, checkServerIdentity: () => undefined }, (res) => {
        const c = (res.socket as import("node:tls").TLSSocket).getPeerCertificate(true);
        res.resume();
        resolve(Buffer.from(c.raw).toString("base64"));
      });
      req.on("error", reject);
      req.end();
    });
    const given = pem.replace(/-----[^-]+-----|\s/g, "");
    assert.equal(served, given);
  });
});

describe("edgectl web refuses bad starts", () => {
  test("flags that only work together are usage errors (exit 2); an unreachable issuer stops the start (exit 1)", async () => {
    const env = { KUBECONFIG: k8s.kubeconfigPath };
    const tls = await runBinary("edgectl", ["web", "--tls-cert", "tls.crt"], { env });
    assert.equal(tls.code, 2);
    assert.match(tls.stderr, /--tls-cert and --tls-key go together/);
    const oidc = await runBinary("edgectl", ["web", "--oidc-client-id", "x"], { env });
    assert.equal(oidc.code, 2);
    assert.match(oidc.stderr, /--oidc-issuer/);
    const listen = await runBinary("edgectl", ["web", "--listen", "9080"], { env });
    assert.equal(listen.code, 2);
    const port = await freePort();
    const down = await runBinary("edgectl", [
      "web",
      "--listen",
      "127.0.0.1:0",
      "--oidc-issuer",
      `http://127.0.0.1:${port}`,
      "--oidc-client-id",
      "x",
      "--oidc-client-secret",
      "never-printed",
    ], { env });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^error: --oidc-issuer: /m);
    assert.doesNotMatch(down.stderr + down.stdout, /never-printed/);
  });
});
