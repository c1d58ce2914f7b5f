/**
 * Runs the compiled binaries in dist/ the way a user does: as child processes, servers on a
 * loopback port the OS picks (port 0, read back from the "listening" log line), with their
 * output captured so a failing test can show it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `dist/<tool>`; a `tool` with a slash is taken as the path of a build itself (a benchmark's `--binary`). */
export function binaryPath(tool: string): string {
  const path = tool.includes("/") ? tool : join(ROOT, "dist", tool);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`deno task build\` first`);
  return path;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A minimal environment, so the developer's own variables never change what a test sees. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...extra };
}

/** Runs a binary to completion. */
export function runBinary(tool: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binaryPath(tool), args, {
      cwd: options.cwd,
      env: baseEnv(options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

export interface LogRecord {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface RunningBinary {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Everything the process wrote so far. */
  output(): string;
  /** Its JSON log lines, parsed. */
  records(): LogRecord[];
  /** Sends a signal and waits for exit; returns the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions extends RunOptions {
  /** Path polled until it answers 200. Default /health. */
  readyPath?: string;
}

/**
 * Starts a server binary and waits until it is ready. The caller puts the port variable at 0
 * (for memsvc: MEMSVC_PORT=0) so the OS picks a free port.
 */
export async function startBinary(
  tool: string,
  args: string[],
  options: StartOptions = {},
): Promise<RunningBinary> {
  const child = spawn(binaryPath(tool), args, {
    cwd: options.cwd,
    env: baseEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const records = () => parseRecords(output);

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let port: number | undefined;
  let exitedEarly = false;
  exited.then(() => (exitedEarly = true));
  while (Date.now() < deadline && !exitedEarly) {
    port ??= records().find((r) => r.msg === "listening")?.port as number | undefined;
    if (port !== undefined && (await isReady(`http://127.0.0.1:${port}${options.readyPath ?? "/health"}`))) {
      return handle(child, port, () => output, records, exited);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  await exited;
  throw new Error(
    `${tool} ${args.join(" ")} did not become ready${exitedEarly ? " (it exited)" : ""}:\n${output}`,
  );
}

/** Whether `url` answers 200 now (false while nothing listens). */
export async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

function handle(
  child: ChildProcess,
  port: number,
  output: () => string,
  records: () => LogRecord[],
  exited: Promise<number | null>,
): RunningBinary {
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    output,
    records,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      // process.kill, not child.kill: after child.kill, Deno's node:child_process reports the
      // signal as the cause of exit even when the program handled it and exited 0.
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export function parseRecords(output: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // not a log line
    }
  }
  return out;
}

/**
 * Runs `body` with a started server, always stops it, and on failure prints the server's
 * captured output so the reason is visible next to the assertion.
 */
export async function withBinary<T>(
  tool: string,
  args: string[],
  options: StartOptions,
  body: (server: RunningBinary) => Promise<T>,
): Promise<T> {
  const server = await startBinary(tool, args, options);
  try {
    return await body(server);
  } catch (err) {
    console.error(`--- ${tool} output ---\n${server.output()}--- end of ${tool} output ---`);
    throw err;
  } finally {
    await server.stop();
  }
}
