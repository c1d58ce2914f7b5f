/**
 * The server's rules that need no cluster: cross-site writes refused, read-only refusing writes,
 * sign-in required with OIDC, and the page's CSP. The browser test (test/edgectl/web_test.ts) covers
 * the rest against real parts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { silentLogger } from "../../internal/log/mod.ts";
import { parseEndpoint } from "../../internal/edgeproxy/endpoint.ts";
import { JaegerClient } from "../../internal/edgeproxy/jaeger_client.ts";
import { PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { createWebApp, WEB_CSP } from "./app.ts";

const kube = new KubeClient({
  files: [],
  contextName: "test",
  cluster: { server: "https://127.0.0.1:1" },
  user: {},
  namespace: "default",
  namespaceFromConfig: false,
  contexts: ["test"],
} as never);

const app = (o: { readOnly?: boolean; oidc?: boolean } = {}) =>
  createWebApp({
    log: silentLogger,
    kube,
    readOnly: o.readOnly ?? false,
    tls: false,
    ...(o.oidc ? { oidc: { clientFor: () => Promise.reject(new Error("not in this test")) } } : {}),
    proxyNamespace: "edge-system",
    bundle: undefined,
  });

const post = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://dash.local${path}`, {
    method: "POST",
    headers: { host: "dash.local", "content-type": "application/json", ...headers },
    body: JSON.stringify({ kind: "ProxyBackend", name: "web", namespace: "shop" }),
  });

test("a write the browser marks cross-site, or from another origin, is refused before anything runs", async () => {
  for (
    const headers of [
      { "sec-fetch-site": "cross-site" } as Record<string, string>,
      { "sec-fetch-site": "same-site" },
      { origin: "http://evil.example" },
      { origin: "null" },
    ]
  ) {
    const res = await app().fetch(post("/api/delete", headers));
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.deepEqual(await res.json(), { error: "cross-site request refused" });
  }
});

test("--read-only refuses writes with 403 and says why", async () => {
  const res = await app({ readOnly: true }).fetch(post("/api/delete", { "sec-fetch-site": "same-origin" }));
  assert.equal(res.status, 403);
  assert.match((await res.json()).error, /--read-only/);
});

test("a write whose body is not declared JSON is refused with 415 (a form post cannot send JSON)", async () => {
  const res = await app().fetch(
    post("/api/delete", { "sec-fetch-site": "same-origin", "content-type": "text/plain" }),
  );
  assert.equal(res.status, 415);
});

test("with OIDC the API needs a session: 401 naming the sign-in path; the session says nobody", async () => {
  const a = app({ oidc: true });
  const res = await a.fetch(new Request("http://dash.local/api/resources"));
  assert.equal(res.status, 401);
  assert.equal((await res.json()).signIn, "/auth/login");
  const forged = await a.fetch(
    new Request("http://dash.local/api/resources", { headers: { cookie: "edgectl_session=guess" } }),
  );
  assert.equal(forged.status, 401);
  const session = await (await a.fetch(new Request("http://dash.local/api/session"))).json();
  assert.equal(session.user, null);
  assert.equal(session.auth, "oidc");
});

test("the page answers 503 with the build hint when not built, under the CSP; / goes to /ui/", async () => {
  const a = app();
  const res = await a.fetch(new Request("http://dash.local/ui/"));
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("content-security-policy"), WEB_CSP);
  assert.match(await res.text(), /deno task build edgectl/);
  assert.doesNotMatch(WEB_CSP, /unsafe/);
  const root = await a.fetch(new Request("http://dash.local/"));
  assert.equal(root.status, 302);
  assert.equal(root.headers.get("location"), "/ui/");
});

test("an unreachable Prometheus or Jaeger: 502 naming the address and the flag that sets it, no runtime error", async () => {
  // A port nothing listens on: bound, then closed.
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  const endpoint = parseEndpoint(`http://127.0.0.1:${port}`, "--prometheus-url");
  assert.ok(typeof endpoint !== "string");
  const a = createWebApp({
    log: silentLogger,
    kube,
    readOnly: false,
    tls: false,
    proxyNamespace: "edge-system",
    bundle: undefined,
    prometheus: new PrometheusClient(endpoint, 5000),
    jaeger: new JaegerClient(endpoint, 5000),
  });
  for (
    const [path, flag, name] of [
      ["/api/metrics?minutes=5", "--prometheus-url", "Prometheus"],
      ["/api/traces?limit=5", "--trace-endpoint", "Jaeger"],
    ] as const
  ) {
    const res = await a.fetch(new Request(`http://dash.local${path}`));
    assert.equal(res.status, 502, path);
    const body = await res.json();
    assert.match(
      body.error,
      new RegExp(`^${name} at http://127\\.0\\.0\\.1:${port} cannot be reached: nothing listens there\\.`),
    );
    assert.match(body.error, new RegExp(flag));
    assert.equal(body.flag, flag);
    assert.doesNotMatch(body.error, /ECONNREFUSED|fetch failed|TypeError/);
  }
});
