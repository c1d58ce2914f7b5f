/**
 * `dist/memsvc serve` as the benchmark runs it: a child process on a free loopback port, in the
 * default auth mode (`user`) with a real `nm_` API token, so every measured request pays the
 * token lookup a deployed agent pays. Start-up is timed from spawn to the first 200 of /health.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { freePort } from "../../internal/http/free_port.ts";
import { binaryPath, isReady } from "../../test/harness/binary.ts";
import { procMemory } from "./proc_stat.ts";

const ADMIN = { email: "bench@example.com", password: "bench-password-1" };
const COOKIE_SECRET = "b".repeat(64);

export interface BenchServer {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 from /health. */
  startMs: number;
  /** Bearer value (`nm_...`) for the API and MCP; set by `login()`. */
  token: string;
  login(): Promise<string>;
  /** VmHWM (peak resident set) of the server process in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
  output(): string;
}

export interface ServerOptions {
  dataDir?: string;
  databaseUrl?: string;
  /** Another build to run instead of dist/memsvc (to compare two builds). */
  binary?: string;
  /** MEMSVC_EMBEDDER; unset: the binary's default. */
  embedder?: string;
}

export function serverEnv(options: ServerOptions): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    // The default level: one JSON request line per request is part of what a deployment pays.
    MEMSVC_COOKIE_SECRET: COOKIE_SECRET,
    MEMSVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...(options.databaseUrl ? { MEMSVC_DATABASE_URL: options.databaseUrl } : {}),
    ...(options.dataDir ? { MEMSVC_DATA_DIR: options.dataDir } : {}),
    // The caller's MEMSVC_EMBEDDER (bench:memsvc --embedder) for servers that do not choose their own.
    ...(process.env.MEMSVC_EMBEDDER ? { MEMSVC_EMBEDDER: process.env.MEMSVC_EMBEDDER } : {}),
    ...(options.embedder ? { MEMSVC_EMBEDDER: options.embedder } : {}),
    // Passed on so the server can be profiled under the benchmark's load (BUN_OPTIONS="--cpu-prof-md ...").
    ...(process.env.BUN_OPTIONS ? { BUN_OPTIONS: process.env.BUN_OPTIONS } : {}),
  };
}

export const BENCH_USER = ADMIN.email;

export async function startServer(options: ServerOptions): Promise<BenchServer> {
  const started = performance.now();
  // A fixed port keeps the "listening" log line out of the timing path: the port is known ahead.
  const port = await freePort();
  const child = spawn(options.binary ?? binaryPath("memsvc"), ["serve", "--port", String(port)], {
    env: serverEnv(options),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  let gone = false;
  exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (!gone && Date.now() < deadline) {
    if (await isReady(`${url}/health`)) {
      const startMs = Math.round(performance.now() - started);
      return handle(child, url, startMs, () => output, exited);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill("SIGKILL");
  await exited;
  throw new Error(`memsvc serve did not become ready:\n${output.slice(-4000)}`);
}

function handle(
  child: ChildProcess,
  url: string,
  startMs: number,
  output: () => string,
  exited: Promise<void>,
): BenchServer {
  const server: BenchServer = {
    url,
    pid: child.pid!,
    startMs,
    token: "",
    output,
    async login() {
      const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: url },
        body: JSON.stringify(ADMIN),
      });
      const session = await signIn.json() as { token?: string };
      if (!session.token) throw new Error(`sign-in failed: ${signIn.status} ${JSON.stringify(session)}`);
      const minted = await fetch(`${url}/v1/me/tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ns_${session.token}` },
        body: JSON.stringify({ label: "bench" }),
      });
      const body = await minted.json() as { token?: string };
      if (!body.token) throw new Error(`token creation failed: ${minted.status} ${JSON.stringify(body)}`);
      return server.token = body.token;
    },
    peakRssMb() {
      return Math.round(procMemory(child.pid!).peakMb);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return server;
}

/** POSTs JSON with the server's token; throws unless the status is 2xx. */
export async function post(server: BenchServer, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** An export file (format 1) of `items` in namespace `search` of the bench user, for `memsvc import`. */
export function exportFile(path: string, items: string[]) {
  const now = new Date().toISOString();
  const lines = [
    JSON.stringify({ type: "memsvc-export", version: 1, exportedAt: now }),
    JSON.stringify({ type: "user", email: BENCH_USER, name: "bench" }),
    ...items.map((content) =>
      JSON.stringify({
        type: "entry",
        id: `m_${randomBytes(12).toString("hex")}`,
        user: BENCH_USER,
        project: null,
        namespace: "search",
        content,
        content_hash: createHash("sha256").update(content.trim()).digest("hex"),
        metadata: {},
        source_type: "observation",
        captured_from: "bench",
        confidence: 1,
        hit_count: 0,
        cold: false,
        created_at: now,
        updated_at: now,
        last_accessed_at: null,
      })
    ),
  ];
  writeFileSync(path, lines.join("\n") + "\n");
}
