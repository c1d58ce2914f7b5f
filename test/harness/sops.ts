/**
 * The real sops binary (built from its Go module by the test command: scripts/testenv/servers.ts), to
 * encrypt the files gitsync's SOPS decryption is tested against.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { SOPS } from "../../scripts/testenv/servers.ts";

export const sopsBinary = cachedBinary(SOPS);

/** Writes `input` to `cwd/name` and runs `sops <args> <file>` there (a .sops.yaml in cwd applies). */
export async function runSops(
  args: string[],
  input: string,
  options: { cwd: string; name: string; identity?: string },
): Promise<string> {
  if (!sopsBinary) throw new Error("sops is not built: run `deno task testenv:build sops`");
  const file = join(options.cwd, options.name);
  await writeFile(file, input);
  const { stdout } = await promisify(execFile)(sopsBinary, [...args, file], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin",
      HOME: options.cwd,
      ...(options.identity ? { SOPS_AGE_KEY: options.identity } : {}),
    },
    maxBuffer: 16 << 20,
  });
  return stdout;
}

/** `input` encrypted by sops for the age `recipient`, stored as `type` (yaml, json, dotenv, binary). */
export async function sopsEncrypt(input: string, type: string, recipient: string): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), "sops-"));
  try {
    const args = ["encrypt", "--age", recipient, "--input-type", type, "--output-type", type];
    return await runSops(args, input, { cwd, name: `plain.${type === "dotenv" ? "env" : type}` });
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
