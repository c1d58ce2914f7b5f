/**
 * A real Jaeger for tests: Jaeger v1's all-in-one built from its pinned Go module (recipe
 * test/edgectl/jaeger, component JAEGER in scripts/testenv/servers.ts), with in-memory storage and
 * every port on a free loopback port, so several can run at once. Tests send spans to its OTLP
 * receivers (gRPC `otlpGrpcEndpoint`, HTTP `otlpHttpUrl`/v1/traces) and read them back through the
 * query API at `queryUrl`, the address `edgectl trace --trace-endpoint` takes.
 *
 *   const jaeger = await startJaeger();
 *   await sendOtlpJson(jaeger, { resourceSpans: [...] });
 *   await jaeger.stop();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "./ports.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { JAEGER } from "../../scripts/testenv/servers.ts";

export interface JaegerServer {
  /** Query service (HTTP API and UI), e.g. http://127.0.0.1:41234. */
  queryUrl: string;
  /** OTLP/HTTP receiver base URL; spans go to `${otlpHttpUrl}/v1/traces`. */
  otlpHttpUrl: string;
  /** OTLP/gRPC receiver, host:port without a scheme (plaintext). */
  otlpGrpcEndpoint: string;
  output(): string;
  stop(): Promise<void>;
}

export function jaegerBinary(): string {
  const bin = cachedBinary(JAEGER);
  if (!bin) {
    throw new Error(
      `Jaeger ${JAEGER.version} is not built: run \`deno task testenv:build ${JAEGER.name}\` ` +
        "(it builds from the Go module recipe in test/edgectl/jaeger)",
    );
  }
  return bin;
}

export async function startJaeger(options: { timeoutMs?: number } = {}): Promise<JaegerServer> {
  const bin = jaegerBinary();
  const [query, queryGrpc, otlpGrpc, otlpHttp, collectorGrpc, collectorHttp, admin] = await Promise.all(
    Array.from({ length: 7 }, () => freePort()),
  );
  const at = (port: number) => `127.0.0.1:${port}`;
  const child: ChildProcess = spawn(bin, [
    `--query.http-server.host-port=${at(query!)}`,
    `--query.grpc-server.host-port=${at(queryGrpc!)}`,
    `--collector.otlp.grpc.host-port=${at(otlpGrpc!)}`,
    `--collector.otlp.http.host-port=${at(otlpHttp!)}`,
    `--collector.grpc-server.host-port=${at(collectorGrpc!)}`,
    `--collector.http-server.host-port=${at(collectorHttp!)}`,
    `--admin.http.host-port=${at(admin!)}`,
    "--log-level=warn",
  ], {
    // In-memory storage, and no traces of Jaeger's own requests.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      SPAN_STORAGE_TYPE: "memory",
      OTEL_TRACES_SAMPLER: "always_off",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const server: JaegerServer = {
    queryUrl: `http://${at(query!)}`,
    otlpHttpUrl: `http://${at(otlpHttp!)}`,
    otlpGrpcEndpoint: at(otlpGrpc!),
    output: () => output,
    stop,
  };
  // Ready when the admin health check says so and the OTLP/HTTP receiver accepts connections.
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`jaeger exited with ${child.exitCode}:\n${output.split("\n").slice(-20).join("\n")}`);
    }
    try {
      const health = await fetch(`http://${at(admin!)}/`);
      const body = await health.text();
      const otlp = await fetch(`${server.otlpHttpUrl}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      await otlp.body?.cancel();
      if (health.ok && /Server available/i.test(body) && otlp.status < 500) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`jaeger not ready after ${options.timeoutMs ?? 30_000} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return server;
}

/** Sends an OTLP/JSON ExportTraceServiceRequest to the HTTP receiver. */
export async function sendOtlpJson(jaeger: JaegerServer, request: unknown): Promise<void> {
  const res = await fetch(`${jaeger.otlpHttpUrl}/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`OTLP export refused: ${res.status} ${text}`);
}
