/**
 * dist/edgectl trace against a real Jaeger (v1 all-in-one built from its Go module, in-memory
 * storage; test/harness/jaeger.ts). The test exports three traces through Jaeger's OTLP/HTTP
 * receiver, so what edgectl reads is Jaeger's own JSON: µs times, typed tags, services under
 * processes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { runBinary } from "../harness/binary.ts";
import { type JaegerServer, sendOtlpJson, startJaeger } from "../harness/jaeger.ts";

let jaeger: JaegerServer;

const NOW = Date.now();
const MS = 1_000_000n; // ns per ms
/** A whole millisecond, so expected µs values are exact. */
const base = (minutesAgo: number) => BigInt(Math.floor((NOW - minutesAgo * 60_000) / 1000) * 1000) * MS;

const CHECKOUT = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const CART = "0000000000000000000000000000cafe";
const OLD = "00000000000000000000000000000bad";

const A0 = base(10);
const B0 = base(5);
const C0 = base(120);

type Attr = { key: string; value: Record<string, unknown> };
const str = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const int = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });

function span(
  traceId: string,
  spanId: string,
  parent: string | undefined,
  name: string,
  start: bigint,
  durationMs: number,
  attributes: Attr[] = [],
  error = false,
) {
  return {
    traceId,
    spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 2,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt(Math.round(durationMs * 1000)) * 1000n),
    attributes,
    status: error ? { code: 2, message: "card declined" } : {},
  };
}

function resource(service: string, spans: unknown[]) {
  return {
    resource: { attributes: [str("service.name", service)] },
    scopeSpans: [{ scope: { name: "edgectl-test" }, spans }],
  };
}

before(async () => {
  jaeger = await startJaeger();
  await sendOtlpJson(jaeger, {
    resourceSpans: [
      resource("frontend", [
        span(CHECKOUT, "0000000000000001", undefined, "GET /checkout", A0, 45, [
          str("http.method", "GET"),
          int("http.status_code", 200),
        ]),
      ]),
      resource("inventory", [
        span(CHECKOUT, "0000000000000002", "0000000000000001", "reserve", A0 + 1200n * 1000n, 12.1),
      ]),
      resource("payments", [
        span(CHECKOUT, "0000000000000003", "0000000000000001", "charge", A0 + 14n * MS, 20, [
          str("payment.provider", "acme pay"),
        ], true),
      ]),
      resource("edge-agent", [
        span(CART, "00000000000000c1", undefined, "GET /cart", B0, 5, [
          str("route", "shop/web"),
          int("http.status_code", 503),
        ]),
        span(OLD, "00000000000000d1", undefined, "GET /", C0, 250, [int("http.status_code", 200)]),
      ]),
    ],
  });
  // The in-memory store is written asynchronously by the collector's queue: wait until all three are there.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await Promise.all(
      [CHECKOUT, CART, OLD].map((id) => fetch(`${jaeger.queryUrl}/api/traces/${id}`).then((r) => r.json())),
    );
    if (found.every((f) => f.data?.[0]?.spans?.length === (f.data[0].traceID === CHECKOUT ? 3 : 1))) break;
    if (Date.now() > deadline) throw new Error(`spans not stored after 20 s:\n${jaeger.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(async () => {
  await jaeger?.stop();
});

function edgectl(args: string[]) {
  return runBinary("edgectl", ["trace", "--trace-endpoint", jaeger.queryUrl, ...args]);
}

async function ok(args: string[]): Promise<string> {
  const r = await edgectl(args);
  assert.equal(r.code, 0, `edgectl trace ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const iso = (ns: bigint) => new Date(Number(ns / MS)).toISOString();

/** The TRACE ID column of a table. */
const ids = (table: string) => table.trimEnd().split("\n").slice(1).map((l) => l.split(/\s+/)[0]);

// Jaeger prints 128-bit ids whose high half is zero with 16 hex digits.
const CART_ID = "000000000000cafe";
const OLD_ID = "0000000000000bad";

describe("edgectl trace", () => {
  test("services: the services that sent spans, from the processes", async () => {
    assert.equal(
      await ok(["services"]),
      "Services (4):\n  edge-agent\n  frontend\n  inventory\n  payments\n",
    );
    assert.deepEqual(JSON.parse(await ok(["services", "-o", "json"])), {
      services: ["edge-agent", "frontend", "inventory", "payments"],
    });
  });

  test("list: the last hour of every service, newest first, with root operation and service", async () => {
    const out = await ok(["list"]);
    assert.equal(
      out,
      [
        "TRACE ID                           OPERATION       SERVICE      DURATION   SPANS   ERRORS   START TIME",
        `${CART_ID}                   GET /cart       edge-agent   5.00ms     1       0        ${iso(B0)}`,
        `${CHECKOUT}   GET /checkout   frontend     45.00ms    3       1        ${iso(A0)}`,
        "",
      ].join("\n"),
    );
    assert.deepEqual(ids(await ok(["list", "--lookback", "7d"])), [CART_ID, CHECKOUT, OLD_ID]);
    assert.deepEqual(ids(await ok(["list", "--lookback", "1w", "--limit", "1"])), [CART_ID]);
    assert.deepEqual(ids(await ok(["list", "--service", "edge-agent", "--lookback", "3h"])), [
      CART_ID,
      OLD_ID,
    ]);
    const json = JSON.parse(await ok(["list", "-o", "json"]));
    assert.deepEqual(json.items[1], {
      traceID: CHECKOUT,
      operation: "GET /checkout",
      service: "frontend",
      durationMicros: 45_000,
      spans: 3,
      services: ["frontend", "inventory", "payments"],
      startTime: iso(A0),
      errors: 1,
    });
  });

  test("search: service, operation, repeatable tags, durations, RFC 3339 times", async () => {
    assert.deepEqual(
      ids(
        await ok([
          "search",
          "--service",
          "edge-agent",
          "--tag",
          "http.status_code=503",
          "--tag",
          "route=shop/web",
        ]),
      ),
      [CART_ID],
    );
    assert.deepEqual(ids(await ok(["search", "--tag", "http.status_code=200", "--lookback", "1d"])), [
      CHECKOUT,
      OLD_ID,
    ]);
    assert.deepEqual(ids(await ok(["search", "--service", "frontend", "--operation", "GET /checkout"])), [
      CHECKOUT,
    ]);
    assert.deepEqual(ids(await ok(["search", "--min-duration", "100ms", "--lookback", "3h"])), [OLD_ID]);
    assert.deepEqual(ids(await ok(["search", "--service", "edge-agent", "--max-duration", "10ms"])), [
      CART_ID,
    ]);
    const window = ["--start", iso(C0 - 60_000n * MS), "--end", iso(C0 + 60_000n * MS)];
    assert.deepEqual(ids(await ok(["search", ...window])), [OLD_ID]);
    const yaml = parseYaml(await ok(["search", "--service", "payments", "-o", "yaml"]));
    assert.deepEqual(yaml.items.map((i: { traceID: string }) => i.traceID), [CHECKOUT]);
    const none = await edgectl(["search", "--service", "frontend", "--tag", "http.method=POST"]);
    assert.equal(none.code, 0);
    assert.equal(none.stderr, "No traces found\n");
  });

  test("get: the span tree with durations, offsets, typed tags and errors", async () => {
    assert.equal(
      await ok(["get", CHECKOUT]),
      [
        `Trace ${CHECKOUT} (3 spans, 3 services, 45.00ms, started ${iso(A0)})`,
        "GET /checkout [frontend] 45.00ms",
        "│  http.method=GET http.status_code=200 otel.scope.name=edgectl-test span.kind=server",
        "├─ reserve [inventory] 12.10ms +1.20ms",
        "│     otel.scope.name=edgectl-test span.kind=server",
        "└─ charge [payments] 20.00ms +14.00ms  ✗ error",
        '      error=true otel.scope.name=edgectl-test otel.status_code=ERROR otel.status_description="card declined" ' +
        'payment.provider="acme pay" span.kind=server',
        "",
      ].join("\n"),
    );
    const t = JSON.parse(await ok(["get", CHECKOUT, "-o", "json"]));
    const root = t.spans.find((s: { spanID: string }) => s.spanID === "0000000000000001");
    assert.equal(root.startTime, Number(A0 / 1000n)); // µs
    assert.equal(root.duration, 45_000);
    assert.deepEqual(root.tags.find((x: { key: string }) => x.key === "http.status_code"), {
      key: "http.status_code",
      type: "int64",
      value: 200,
    });
    assert.equal(t.processes[root.processID].serviceName, "frontend");
  });

  test("errors: unknown trace, bad id, bad flags, unreachable Jaeger", async () => {
    let r = await edgectl(["get", "ffffffffffffffffffffffffffffffff"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "error: trace ffffffffffffffffffffffffffffffff not found\n");
    r = await edgectl(["get", "not-hex"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /"not-hex" is not a trace id/);
    r = await edgectl(["search", "--tag", "novalue"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--tag must be key=value, not "novalue"/);
    r = await edgectl(["search", "--start", "yesterday"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--start: "yesterday" is not an RFC 3339 time/);
    r = await edgectl(["list", "--lookback", "7y"]);
    assert.equal(r.code, 2);
    r = await runBinary("edgectl", ["trace", "list", "--trace-endpoint", "http://ops:topsecret@127.0.0.1:1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: cannot reach the Jaeger query service at http:\/\/127.0.0.1:1: /);
    assert.ok(!r.stderr.includes("topsecret"), "the password is not printed");
  });

  test("the OTLP gRPC receiver listens too (other tests export through it)", async () => {
    const { connect } = await import("node:net");
    const [host, port] = jaeger.otlpGrpcEndpoint.split(":");
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), host!, () => {
        socket.end();
        resolve();
      });
      socket.once("error", reject);
    });
  });
});
