/** Helpers for tests that run programs in-process. Not part of the public face (`mod.ts`). */
import assert from "node:assert/strict";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Io } from "./io.ts";
import { execute } from "./run.ts";

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Streams that keep what is written to them. */
export function captureIo(): { io: Io; stdout(): string; stderr(): string } {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}

/** Builds a program on captured streams, runs it with `args` and returns the exit code and output. */
export async function executeCaptured(
  build: (io: Io) => CommandUnknownOpts,
  args: string[],
): Promise<Captured> {
  const { io, stdout, stderr } = captureIo();
  const code = await execute(build(io), args);
  return { code, stdout: stdout(), stderr: stderr() };
}

/** Runs `fn` with environment variables set (or, for `undefined`, unset), then restores them. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  setEnv(vars);
  try {
    return await fn();
  } finally {
    setEnv(saved);
  }
}

function setEnv(vars: Record<string, string | undefined>) {
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/**
 * Asserts that `args` is a usage error of the program `build` makes: exit 2, nothing on stdout, the
 * message, and the hint `Run '<tool> <command> --help' for usage.`, all with `env` set (give a
 * kubeconfig that does not exist: reaching a cluster would then fail with exit 1, not 2).
 */
export async function assertUsageError(
  build: (io: Io) => CommandUnknownOpts,
  args: string[],
  message: RegExp,
  env: Record<string, string | undefined> = {},
): Promise<void> {
  await withEnv(env, async () => {
    const r = await executeCaptured(build, args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, message);
    assert.match(r.stderr, /\nRun '\S+ \S+ --help' for usage\.\n$/);
  });
}
