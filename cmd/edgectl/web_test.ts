import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_LISTEN, parseListen, validateWebFlags, type WebFlags } from "./web.ts";

const base: WebFlags = {
  listen: ":9080",
  prometheusUrl: "http://localhost:9090",
  traceEndpoint: "http://localhost:16686",
  readOnly: false,
};

test("edgectl web listens on 127.0.0.1 unless told otherwise", () => {
  const c = validateWebFlags({ ...base, listen: DEFAULT_LISTEN });
  assert.ok(typeof c !== "string");
  assert.equal(c.hostname, "127.0.0.1");
  assert.equal(c.port, 9080);
  const everywhere = validateWebFlags({ ...base, listen: ":9080" });
  assert.ok(typeof everywhere !== "string");
  assert.equal(everywhere.hostname, "0.0.0.0");
});

test("parseListen: host:port, :port (every interface), [v6]:port; anything else is refused", () => {
  assert.deepEqual(parseListen(":9080"), { hostname: "0.0.0.0", port: 9080 });
  assert.deepEqual(parseListen("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListen("[::1]:9443"), { hostname: "::1", port: 9443 });
  assert.deepEqual(parseListen("localhost:8080"), { hostname: "localhost", port: 8080 });
  for (const bad of ["9080", "host", ":70000", "a:b", "1.2.3.4:80:90", ""]) {
    assert.equal(parseListen(bad), undefined, bad);
  }
});

test("the reference's spellings win when given: --address, --prometheus-endpoint, --jaeger-endpoint", () => {
  const c = validateWebFlags({
    ...base,
    address: "127.0.0.1:7000",
    prometheusEndpoint: "http://prom:9090/",
    jaegerEndpoint: "http://jaeger:16686",
  });
  assert.ok(typeof c !== "string");
  assert.equal(c.port, 7000);
  assert.equal(c.prometheus.url, "http://prom:9090");
  assert.equal(c.jaeger.url, "http://jaeger:16686");
});

test("TLS and OIDC flags that only work together are usage errors", () => {
  assert.match(
    validateWebFlags({ ...base, tlsCert: "c.pem" }) as string,
    /--tls-cert and --tls-key go together/,
  );
  assert.match(validateWebFlags({ ...base, tlsKey: "k.pem" }) as string, /go together/);
  assert.match(validateWebFlags({ ...base, oidcIssuer: "https://idp" }) as string, /--oidc-client-id/);
  assert.match(validateWebFlags({ ...base, oidcClientId: "x" }) as string, /--oidc-issuer/);
  assert.match(validateWebFlags({ ...base, oidcClientSecret: "s" }) as string, /--oidc-issuer/);
  assert.match(
    validateWebFlags({ ...base, oidcIssuer: "http://idp.example.com", oidcClientId: "x" }) as string,
    /must be an https URL/,
  );
  const ok = validateWebFlags({
    ...base,
    tlsCert: "c.pem",
    tlsKey: "k.pem",
    oidcIssuer: "http://127.0.0.1:5556",
    oidcClientId: "edgectl",
    oidcClientSecret: "s",
  });
  assert.ok(typeof ok !== "string");
  assert.deepEqual(ok.oidc, { issuer: "http://127.0.0.1:5556", clientId: "edgectl", clientSecret: "s" });
  assert.deepEqual(ok.tls, { certFile: "c.pem", keyFile: "k.pem" });
});

test("a bad URL is refused without echoing its password", () => {
  const msg = validateWebFlags({ ...base, prometheusUrl: "ftp://u:hunter2@prom" }) as string;
  assert.match(msg, /--prometheus-url/);
  assert.doesNotMatch(msg, /hunter2/);
  assert.match(validateWebFlags({ ...base, listen: "9080" }) as string, /--listen: "9080"/);
});
