/**
 * A plugin's sandbox process, seen from the vault: started from this same binary (`vault
 * __plugin-sandbox`, or the sandbox module from source) with an empty environment in the plugin's
 * folder. Each call has a time limit and the process a memory limit; overrunning either kills the
 * process, and so does any exit the vault did not ask for. The vault keeps serving either way.
 *
 * Why a process and not a Worker: Bun (which runs the compiled binary) ignores Worker resourceLimits
 * (measured with bun 1.4.4, in a `bun build --compile` binary: a worker given maxOldGenerationSizeMb 64
 * took the process to 1.25 GB before terminate()), a worker shares the vault's environment
 * (DATABASE_URL, BETTER_AUTH_SECRET) and an allocation without bound in it takes the whole server
 * down with it. A process's resident memory is read from /proc (Linux) every `memoryPollMs`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Logger } from "../../../internal/log/mod.ts";
import { isCompiledBinary, runtime } from "../../../internal/platform/mod.ts";
import { type FromSandbox, LINE_MARK, SANDBOX_ARG, type SandboxCall, type ToSandbox } from "./protocol.ts";

export interface PluginProcessOptions {
  pluginId: string;
  /** The plugin's folder: the process's working directory. */
  dir: string;
  timeoutMs: number;
  memoryMb: number;
  memoryPollMs?: number;
  log: Logger;
  /** A host API call from the plugin; `call` is the vault's call it runs under. */
  onApi(method: string, args: unknown[], call: number | undefined): Promise<unknown>;
  /** A route registration or an event subscription. */
  onDeclare(m: Extract<FromSandbox, { t: "route" | "subscribe" }>): void;
  /** The process ended without being asked to: the reason. */
  onFailure(reason: string): void;
}

/** How to run the sandbox: this binary with SANDBOX_ARG, or the sandbox entry from source. */
function sandboxCommand(memoryMb: number): string[] {
  if (isCompiledBinary()) return [process.execPath, SANDBOX_ARG];
  const entry = fileURLToPath(new URL("./sandbox_entry.ts", import.meta.url));
  if (runtime === "deno") {
    return [
      process.execPath,
      "run",
      "--allow-read",
      "--no-prompt",
      `--v8-flags=--max-old-space-size=${memoryMb}`,
      entry,
    ];
  }
  return [process.execPath, entry];
}

/**
 * Longest line the sandbox may write: a message carries at most a note (1 MB) with JSON's escaping. A
 * line without end would otherwise grow in the vault's memory, not the plugin's.
 */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Calls `onLine` for each line of `stream`; `onTooLong` (once) when a line passes MAX_LINE_BYTES. */
function splitLines(stream: Readable, onLine: (line: string) => void, onTooLong: () => void): void {
  let parts: Buffer[] = [];
  let size = 0;
  let stopped = false;
  stream.on("data", (chunk: Buffer) => {
    if (stopped) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      onLine(Buffer.concat(parts).toString("utf8"));
      parts = [];
      size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_LINE_BYTES) {
        stopped = true;
        parts = [];
        onTooLong();
      }
    }
  });
}

/** Host API calls of one plugin the vault works on at once; more are refused at once. */
const MAX_API_IN_FLIGHT = 64;

/** Longest the sandbox process may take to start and listen. */
const STARTUP_MS = 30_000;

async function residentMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export class PluginProcess {
  readonly #child: ChildProcess;
  readonly #calls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #watch: ReturnType<typeof setInterval>;
  #nextId = 1;
  #apiInFlight = 0;
  #markReady: () => void = () => {};
  /** The sandbox started (a loaded machine may take seconds to start a process; not the plugin's time). */
  readonly #ready = new Promise<void>((resolve) => (this.#markReady = resolve));
  #ended = false;
  #stopping = false;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;

  constructor(private readonly o: PluginProcessOptions) {
    const [cmd, ...args] = sandboxCommand(o.memoryMb);
    this.#child = spawn(cmd!, args, {
      cwd: o.dir,
      // Nothing of the vault's environment: no database URL, no secrets.
      env: { PATH: "/usr/bin:/bin", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise((resolve) => this.#child.on("exit", () => resolve()));
    this.#child.on("error", (err) => this.#fail(`the sandbox did not start: ${err.message}`));
    this.#child.on("exit", (code, signal) => {
      if (!this.#stopping) this.#fail(`the sandbox exited (${signal ?? `code ${code}`})`);
      this.#end(new Error("the plugin stopped"));
    });
    const tooLong = () => this.#fail(`wrote a line over ${MAX_LINE_BYTES} bytes`);
    splitLines(this.#child.stdout!, (line) => this.#line(line), tooLong);
    splitLines(this.#child.stderr!, (line) => {
      if (line.trim()) o.log.warn("plugin stderr", { plugin: o.pluginId, line: line.slice(0, 2000) });
    }, tooLong);
    this.#watch = setInterval(async () => {
      const pid = this.#child.pid;
      const mb = pid ? await residentMb(pid) : undefined;
      if (mb !== undefined && mb > o.memoryMb && !this.#ended) {
        this.#fail(`used ${Math.round(mb)} MB, more than its limit of ${o.memoryMb} MB`);
      }
    }, o.memoryPollMs ?? 100);
    (this.#watch as { unref?: () => void }).unref?.();
    const startup = setTimeout(
      () => this.#fail(`the sandbox did not start within ${STARTUP_MS} ms`),
      STARTUP_MS,
    );
    (startup as { unref?: () => void }).unref?.();
    void this.#ready.then(() => clearTimeout(startup));
  }

  /** Sends a call and waits for its reply, at most the time limit (then the process is killed). */
  async call(message: SandboxCall, id = this.#nextId++): Promise<unknown> {
    await Promise.race([this.#ready, this.exited]);
    if (this.#ended) throw new Error("the plugin is not running");
    return await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(`a call (${message.t}) ran longer than its limit of ${this.o.timeoutMs} ms`);
      }, this.o.timeoutMs);
      this.#calls.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.#send({ ...message, id } as ToSandbox);
    });
  }

  /** A fresh call id, for a call whose id the host API needs to know before it is sent. */
  nextCallId(): number {
    return this.#nextId++;
  }

  /** Asks the plugin to deactivate (within the time limit), then ends the process. */
  async stop(): Promise<void> {
    if (this.#ended) return;
    try {
      await this.call({ t: "deactivate" });
    } catch { /* it stops either way */ }
    this.#stopping = true;
    this.#child.stdin?.end();
    const killer = setTimeout(() => this.#child.kill("SIGKILL"), 1_000);
    await this.exited;
    clearTimeout(killer);
  }

  #send(m: ToSandbox) {
    this.#child.stdin?.write(JSON.stringify(m) + "\n");
  }

  #line(line: string) {
    if (!line.startsWith(LINE_MARK)) {
      if (line.trim()) {
        this.o.log.info("plugin output", { plugin: this.o.pluginId, line: line.slice(0, 2000) });
      }
      return;
    }
    let m: FromSandbox;
    try {
      m = JSON.parse(line.slice(LINE_MARK.length));
    } catch {
      return this.#fail("sent a message that is not JSON");
    }
    switch (m.t) {
      case "reply": {
        const c = this.#calls.get(m.id);
        this.#calls.delete(m.id);
        if (m.ok) c?.resolve(m.value);
        else c?.reject(new Error(m.error));
        return;
      }
      case "api":
        // A plugin firing host calls without waiting for them queues work in the vault, not in itself.
        if (this.#apiInFlight >= MAX_API_IN_FLIGHT) {
          const error = `more than ${MAX_API_IN_FLIGHT} host API calls at once`;
          return this.#send({ t: "reply", id: m.id, ok: false, error });
        }
        this.#apiInFlight++;
        this.o.onApi(m.method, Array.isArray(m.args) ? m.args : [], m.call).then(
          (value) => this.#send({ t: "reply", id: m.id, ok: true, value: value ?? null }),
          (err) => this.#send({ t: "reply", id: m.id, ok: false, error: (err as Error).message }),
        ).finally(() => this.#apiInFlight--);
        return;
      case "ready":
        return this.#markReady();
      case "route":
      case "subscribe":
        return this.o.onDeclare(m);
      case "log": {
        const level = ["debug", "info", "warn", "error"].includes(m.level) ? m.level : "info";
        this.o.log[level](String(m.msg).slice(0, 2000), { ...m.fields, plugin: this.o.pluginId });
        return;
      }
    }
  }

  /** Kills the process and reports why (once). */
  #fail(reason: string) {
    if (this.#ended) return;
    this.#stopping = true;
    this.#child.kill("SIGKILL");
    this.#end(new Error(reason));
    this.o.onFailure(reason);
  }

  #end(err: Error) {
    this.#ended = true;
    clearInterval(this.#watch);
    for (const c of this.#calls.values()) c.reject(err);
    this.#calls.clear();
  }
}
