/**
 * A real Prometheus server for tests: Debian's `prometheus` package, started on a free loopback port
 * with its own config and TSDB directory (never the Debian service), scraping the given targets.
 *
 *   const prom = await startPrometheus({ targets: ["127.0.0.1:9101"], scrapeInterval: "1s" });
 *   await fetch(`${prom.url}/api/v1/query?query=up`);
 *   await prom.stop();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

export const PROMETHEUS_BINARY = "/usr/bin/prometheus";

export interface PrometheusServer {
  url: string;
  /** Everything Prometheus logged, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** host:port of each target, scraped at /metrics under job "edgeproxy". */
  targets: string[];
  /** Default 1s, so tests see rates within seconds. */
  scrapeInterval?: string;
  /** Readiness timeout; default 30 s. */
  timeoutMs?: number;
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  if (!existsSync(PROMETHEUS_BINARY)) {
    throw new Error(
      `${PROMETHEUS_BINARY} is missing: install Debian's prometheus package ` +
        "(`apt-get install -y prometheus`, or `deno task testenv:provision`)",
    );
  }
  const dir = await mkdtemp(join(tmpdir(), "prometheus-test-"));
  const interval = options.scrapeInterval ?? "1s";
  const config = [
    "global:",
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${interval}`,
    "scrape_configs:",
    "  - job_name: edgeproxy",
    "    static_configs:",
    `      - targets: [${options.targets.map((t) => JSON.stringify(t)).join(", ")}]`,
    "",
  ].join("\n");
  await writeFile(join(dir, "prometheus.yml"), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(PROMETHEUS_BINARY, [
    `--config.file=${join(dir, "prometheus.yml")}`,
    `--storage.tsdb.path=${join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--log.level=warn",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(
        `prometheus exited with ${child.exitCode}:\n${output.split("\n").slice(-20).join("\n")}`,
      );
    }
    try {
      const res = await fetch(`${url}/-/ready`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready after ${options.timeoutMs ?? 30_000} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, output: () => output, stop };
}
