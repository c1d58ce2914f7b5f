/**
 * dist/edgectl metrics against a real Prometheus (Debian's package, test/harness/prometheus.ts)
 * scraping a small exporter, started here, that serves the metrics docs/edgectl.md says the proxy's
 * agents export. Counters grow at fixed rates, so the views' numbers are known: shop/web serves
 * 10 requests/s of 200 and 1 of 503 (a 9.09% error ratio), shop/api 4/s, blog/web 2/s.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { baseEnv, binaryPath, runBinary } from "../harness/binary.ts";
import { type PrometheusServer, startPrometheus } from "../harness/prometheus.ts";

let prom: PrometheusServer;
let exporter: Server;
const started = Date.now();

// 0.03, not 0.025: p99 then falls on 29.8 ms, away from a rounding boundary of the printed value.
const BUCKETS = [0.005, 0.01, 0.03, 0.05, 0.1, 0.25, 0.5, 1];

interface Traffic {
  node: string;
  gateway: string;
  route: string;
  method: string;
  code: string;
  perSecond: number;
  /** Every request of this series takes this long. */
  seconds: number;
}

const TRAFFIC: Traffic[] = [
  {
    node: "node-a",
    gateway: "shop/main",
    route: "shop/web",
    method: "GET",
    code: "200",
    perSecond: 10,
    seconds: 0.02,
  },
  {
    node: "node-a",
    gateway: "shop/main",
    route: "shop/web",
    method: "GET",
    code: "503",
    perSecond: 1,
    seconds: 0.02,
  },
  {
    node: "node-b",
    gateway: "shop/main",
    route: "shop/api",
    method: "POST",
    code: "200",
    perSecond: 4,
    seconds: 0.3,
  },
  {
    node: "node-b",
    gateway: "blog/edge",
    route: "blog/web",
    method: "GET",
    code: "200",
    perSecond: 2,
    seconds: 0.003,
  },
];

/**
 * rate() divides by the whole window, so the views are asked for a window the scraped data fill:
 * 5 s, about five scrapes (rate extrapolates half a scrape interval past the outer samples).
 */
const WINDOW = ["--window", "5s"];

/** The exposition text at this moment. */
function exposition(): string {
  // Counters may be fractional; exact multiples keep the ratios between series exact.
  const t = (Date.now() - started) / 1000;
  const lines: string[] = [];
  const labels = (l: Record<string, string>) =>
    `{${Object.entries(l).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`;
  lines.push("# HELP edgeproxy_agent_info Agent build information.", "# TYPE edgeproxy_agent_info gauge");
  lines.push(`edgeproxy_agent_info${labels({ node: "node-a", version: "v0.3.1" })} 1`);
  lines.push(`edgeproxy_agent_info${labels({ node: "node-b", version: "v0.3.0" })} 1`);
  lines.push("# TYPE edgeproxy_agent_config_generation gauge");
  lines.push(
    `edgeproxy_agent_config_generation{node="node-a"} 7`,
    `edgeproxy_agent_config_generation{node="node-b"} 6`,
  );
  lines.push("# TYPE edgeproxy_agent_active_connections gauge");
  lines.push(
    `edgeproxy_agent_active_connections{node="node-a"} 12`,
    `edgeproxy_agent_active_connections{node="node-b"} 30`,
  );
  lines.push("# TYPE edgeproxy_http_requests_total counter");
  for (const s of TRAFFIC) {
    const l = {
      node: s.node,
      gateway: s.gateway,
      route: s.route,
      backend: s.route,
      method: s.method,
      code: s.code,
    };
    lines.push(`edgeproxy_http_requests_total${labels(l)} ${s.perSecond * t}`);
  }
  lines.push("# TYPE edgeproxy_http_request_duration_seconds histogram");
  for (const s of TRAFFIC) {
    const l = { node: s.node, gateway: s.gateway, route: s.route, backend: s.route, code: s.code };
    const n = s.perSecond * t;
    for (const le of BUCKETS) {
      lines.push(
        `edgeproxy_http_request_duration_seconds_bucket${labels({ ...l, le: String(le) })} ${
          s.seconds <= le ? n : 0
        }`,
      );
    }
    lines.push(`edgeproxy_http_request_duration_seconds_bucket${labels({ ...l, le: "+Inf" })} ${n}`);
    lines.push(`edgeproxy_http_request_duration_seconds_sum${labels(l)} ${n * s.seconds}`);
    lines.push(`edgeproxy_http_request_duration_seconds_count${labels(l)} ${n}`);
  }
  lines.push("# TYPE edgeproxy_backend_endpoints gauge");
  for (
    const [backend, healthy, unhealthy] of [["shop/web", 2, 1], ["shop/api", 3, 0], [
      "blog/web",
      1,
      0,
    ]] as const
  ) {
    for (const node of ["node-a", "node-b"]) {
      lines.push(`edgeproxy_backend_endpoints${labels({ node, backend, state: "healthy" })} ${healthy}`);
      lines.push(`edgeproxy_backend_endpoints${labels({ node, backend, state: "unhealthy" })} ${unhealthy}`);
    }
  }
  lines.push("# TYPE edgeproxy_vip_info gauge");
  const vip = { vip: "shop/public", address: "203.0.113.10", mode: "L2" };
  lines.push(`edgeproxy_vip_info${labels({ ...vip, node: "node-a" })} 1`);
  lines.push(`edgeproxy_vip_info${labels({ ...vip, node: "node-b" })} 0`);
  lines.push("# TYPE edgeproxy_vip_bytes_total counter");
  lines.push(
    `edgeproxy_vip_bytes_total${labels({ vip: "shop/public", node: "node-a", direction: "rx" })} ${
      Math.floor(2048 * t)
    }`,
  );
  lines.push(
    `edgeproxy_vip_bytes_total${labels({ vip: "shop/public", node: "node-a", direction: "tx" })} ${
      Math.floor(10240 * t)
    }`,
  );
  return lines.join("\n") + "\n";
}

function edgectl(args: string[]) {
  return runBinary("edgectl", ["metrics", "--prometheus-url", prom.url, ...args]);
}

async function ok(args: string[]): Promise<string> {
  const r = await edgectl(args);
  assert.equal(r.code, 0, `edgectl metrics ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** The table's rows as objects keyed by header (headers are single words here, or joined by "_"). */
function rowsOf(table: string): Record<string, string>[] {
  const [head, ...rows] = table.trimEnd().split("\n");
  const starts = [...head!.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index! }));
  return rows.map((row) =>
    Object.fromEntries(starts.map((h, i) => [h.name, row.slice(h.at, starts[i + 1]?.at).trim()]))
  );
}

function near(text: string, want: number, what: string) {
  const v = Number(text);
  assert.ok(Math.abs(v - want) <= want * 0.3, `${what}: ${text} is not near ${want}`);
}

before(async () => {
  exporter = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    res.end(exposition());
  });
  await new Promise<void>((r) => exporter.listen(0, "127.0.0.1", r));
  const port = (exporter.address() as { port: number }).port;
  prom = await startPrometheus({ targets: [`127.0.0.1:${port}`], scrapeInterval: "1s" });
  // Wait until the 5 s window holds five scrapes (bounded).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(
      `${prom.url}/api/v1/query?query=${
        encodeURIComponent(`count_over_time(edgeproxy_agent_config_generation{node="node-a"}[5s]) >= 5`)
      }`,
    );
    const body = await res.json() as { data: { result: unknown[] } };
    if (body.data.result.length > 0) break;
    if (Date.now() > deadline) throw new Error(`Prometheus has no rates after 30 s:\n${prom.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  await prom?.stop();
  await new Promise((r) => exporter?.close(r));
});

describe("edgectl metrics", () => {
  test("agent: one row per agent with traffic, connections and config generation", async () => {
    const rows = rowsOf(await ok(["agent", ...WINDOW]));
    assert.deepEqual(rows.map((r) => [r.NODE, r.VERSION, r.CONNECTIONS, r["CONFIG GEN"]]), [
      ["node-a", "v0.3.1", "12", "7"],
      ["node-b", "v0.3.0", "30", "6"],
    ]);
    near(rows[0]!.RPS!, 11, "node-a RPS");
    assert.equal(rows[0]!.ERRORS, "9.09%");
    assert.equal(rows[0]!.P99, "29.8ms"); // histogram_quantile: 10 ms + 0.99 of the (10ms, 30ms] bucket
    const one = JSON.parse(await ok(["agent", "node-b", ...WINDOW, "-o", "json"]));
    assert.deepEqual(one.items.map((i: { node: string }) => i.node), ["node-b"]);
    assert.equal(one.items[0].errorRatio, 0);
  });

  test("backends: rates, latency and healthy endpoints", async () => {
    const rows = rowsOf(await ok(["backends", ...WINDOW]));
    assert.deepEqual(rows.map((r) => [r.BACKEND, r.HEALTHY]), [
      ["shop/web", "2/3"],
      ["shop/api", "3/3"],
      ["blog/web", "1/1"],
    ]);
    near(rows[1]!.RPS!, 4, "shop/api RPS");
    assert.equal(rows[1]!.P50, "375ms"); // halfway into the (250ms, 500ms] bucket
    const yaml = parseYaml(await ok(["backends", ...WINDOW, "-o", "yaml"]));
    assert.equal(yaml.items[0].backend, "shop/web");
    assert.ok(Math.abs(yaml.items[0].errorRatio - 1 / 11) < 1e-9);
  });

  test("top-routes and top-backends: busiest first, --limit", async () => {
    const routes = rowsOf(await ok(["top-routes", ...WINDOW, "--limit", "2"]));
    assert.deepEqual(routes.map((r) => r.ROUTE), ["shop/web", "shop/api"]);
    const backends = rowsOf(await ok(["top-backends", ...WINDOW, "--limit", "1"]));
    assert.deepEqual(backends.map((r) => r.BACKEND), ["shop/web"]);
    const r = await edgectl(["top-routes", "--limit", "0"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--limit must be a positive integer/);
  });

  test("vips: owner, standbys and byte rates", async () => {
    const [row] = rowsOf(await ok(["vips", ...WINDOW]));
    assert.equal(row!.VIP, "shop/public");
    assert.equal(row!.OWNER, "node-a");
    assert.equal(row!.STANDBYS, "node-b");
    assert.match(row!.RX!, /^(1\.[4-9]\d*|2(\.\d+)?)KiB\/s$/);
    assert.match(row!.TX!, /^([789]|1[0-3])(\.\d+)?KiB\/s$/);
  });

  test("query: vector, scalar and range results as tables, JSON and YAML", async () => {
    const vector = await ok(["query", "edgeproxy_agent_config_generation"]);
    assert.match(vector, /^NAME\s+INSTANCE\s+JOB\s+NODE\s+VALUE\n/);
    assert.match(vector, /edgeproxy_agent_config_generation\s+127\.0\.0\.1:\d+\s+edgeproxy\s+node-a\s+7\n/);
    const scalar = rowsOf(await ok(["query", "scalar(sum(edgeproxy_agent_info))"]));
    assert.equal(scalar[0]!.VALUE, "2");
    const json = JSON.parse(
      await ok(["query", "sum by (node) (edgeproxy_agent_active_connections)", "-o", "json"]),
    );
    assert.equal(json.resultType, "vector");
    assert.deepEqual(json.result.map((s: { value: [number, string] }) => s.value[1]).sort(), ["12", "30"]);
    const start = new Date(Date.now() - 5000).toISOString();
    const matrix = rowsOf(
      await ok(["query", "sum(edgeproxy_agent_active_connections)", "--start", start, "--step", "1s"]),
    );
    assert.equal(matrix.length, 1);
    assert.ok(Number(matrix[0]!.SAMPLES) >= 3, JSON.stringify(matrix));
    assert.equal(matrix[0]!.LAST, "42");
    assert.match(matrix[0]!.TREND!, /^▁+$/);
    const yaml = parseYaml(await ok(["query", "up", "--start", start, "-o", "yaml"]));
    assert.equal(yaml.resultType, "matrix");
  });

  test("errors: Prometheus's errorType, an unreachable server, bad flags", async () => {
    let r = await edgectl(["query", "sum(rate(edgeproxy_http_requests_total[5m]"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: prometheus: bad_data: .*parse error/);
    r = await runBinary("edgectl", [
      "metrics",
      "agent",
      "--prometheus-url",
      "http://ops:topsecret@127.0.0.1:1",
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: cannot reach Prometheus at http:\/\/127.0.0.1:1: /);
    assert.ok(!r.stderr.includes("topsecret"), "the password is not printed");
    r = await edgectl(["query", "up", "--start", "yesterday"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--start: "yesterday" is not an RFC 3339 time or Unix seconds/);
    r = await edgectl(["agent", "--window", "5x"]);
    assert.equal(r.code, 2);
  });

  test("dashboard --once prints one frame; the reference's --prometheus-endpoint works", async () => {
    const r = await runBinary("edgectl", [
      "metrics",
      "--prometheus-endpoint",
      prom.url,
      "dashboard",
      "--once",
      "--range",
      "30s",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^edgectl metrics dashboard/);
    assert.match(r.stdout, /REQUESTS\/S\s+\d/);
    assert.match(r.stdout, /5XX\s+\d+\.\d\d%/);
    assert.match(r.stdout, /TOP ROUTES\nROUTE\s+RPS\s+ERRORS\s+P50\s+P99\s+TREND\nshop\/web /);
    assert.match(r.stdout, /AGENTS\nNODE/);
    assert.ok(!r.stdout.includes("\x1b"), "--once writes no terminal escapes");
    const noTty = await edgectl(["dashboard"]);
    assert.equal(noTty.code, 1);
    assert.match(noTty.stderr, /needs a terminal; use --once/);
  });

  for (const [name, key] of [["q", "q"], ["Ctrl-C", "\x03"]] as const) {
    test(`dashboard in a terminal redraws, and ${name} quits and restores the terminal`, async () => {
      // script(1) gives edgectl a pty as stdin and stdout, as a terminal would.
      const cmd = [
        binaryPath("edgectl"),
        "metrics",
        "--prometheus-url",
        prom.url,
        "dashboard",
        "--interval",
        "300ms",
      ]
        .map((a) => `'${a}'`).join(" ");
      const child = spawn("script", ["-qefc", cmd, "/dev/null"], { env: baseEnv({ TERM: "xterm" }) });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      try {
        const deadline = Date.now() + 20_000;
        // Two frames: it redraws.
        while ((out.match(/TOP ROUTES/g) ?? []).length < 2) {
          assert.ok(Date.now() < deadline, `no second frame: ${JSON.stringify(out.slice(-2000))}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(out.includes("\x1b[?1049h"), "enters the alternate screen");
        child.stdin.write(key);
        const code = await Promise.race([exit, new Promise((r) => setTimeout(() => r("timeout"), 10_000))]);
        assert.equal(code, 0, JSON.stringify(out.slice(-500)));
        assert.ok(out.includes("\x1b[?25h\x1b[?1049l"), "restores the cursor and the screen");
      } finally {
        child.kill("SIGKILL");
      }
    });
  }
});
