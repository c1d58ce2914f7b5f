/**
 * SHA256SUMS and its detached signature, made and checked with OpenSSH's `ssh-keygen -Y` (the file
 * signing format Git uses too). Users verify with the published allowed-signers file:
 *
 *   ssh-keygen -Y verify -f allowed_signers -I toolkit-release -n file -s SHA256SUMS.sig < SHA256SUMS
 *
 * The key is an OpenSSH private key (ed25519), given as a file or in RELEASE_SIGNING_KEY (CI's secret).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Who signs, as allowed_signers names it, and the signature namespace (what the signature is for). */
export const SIGNER = "toolkit-release";
export const NAMESPACE = "file";

/** `<sha256>  <name>` per file, sorted by name: the format `sha256sum -c` reads. */
export async function sha256sums(files: readonly string[]): Promise<string> {
  const lines = await Promise.all(files.map(async (f) => {
    const digest = createHash("sha256").update(await readFile(f)).digest("hex");
    return `${digest}  ${basename(f)}`;
  }));
  return lines.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("\n") + "\n";
}

/** The key in a private temp file (ssh-keygen refuses keys others can read); removed by `done`. */
async function keyFile(
  key: { file?: string; text?: string },
): Promise<{ path: string; done: () => Promise<void> }> {
  if (key.file) return { path: key.file, done: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), "release-key-"));
  const path = join(dir, "key");
  await writeFile(path, key.text!.trim() + "\n", { mode: 0o600 });
  await chmod(path, 0o600);
  return { path, done: () => rm(dir, { recursive: true, force: true }) };
}

/** Signs `file` into `<file>.sig`. */
export async function signFile(file: string, key: { file?: string; text?: string }): Promise<void> {
  await withKey(key, async (path) => {
    await rm(`${file}.sig`, { force: true });
    await run("ssh-keygen", ["-q", "-Y", "sign", "-f", path, "-n", NAMESPACE, file]);
  });
}

/** The allowed_signers line of the key: `toolkit-release namespaces="file" ssh-ed25519 AAAA...`. */
export async function allowedSignersLine(key: { file?: string; text?: string }): Promise<string> {
  return await withKey(key, async (path) => {
    const { stdout } = await run("ssh-keygen", ["-y", "-f", path]);
    const [type, blob] = stdout.trim().split(/\s+/);
    return `${SIGNER} namespaces="${NAMESPACE}" ${type} ${blob}`;
  });
}

async function withKey<T>(
  key: { file?: string; text?: string },
  use: (path: string) => Promise<T>,
): Promise<T> {
  const k = await keyFile(key);
  try {
    return await use(k.path);
  } catch (err) {
    // ssh-keygen names the key file, never its content.
    throw new Error(`ssh-keygen failed: ${(err as { stderr?: string }).stderr?.trim() || err}`);
  } finally {
    await k.done();
  }
}

/** Whether `signature` is a good signature of `file` by a key in `allowedSigners`. */
export async function verifyFile(file: string, signature: string, allowedSigners: string): Promise<boolean> {
  try {
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        "ssh-keygen",
        ["-Y", "verify", "-f", allowedSigners, "-I", SIGNER, "-n", NAMESPACE, "-s", signature],
        (err) => (err ? reject(err) : resolve()),
      );
      readFile(file).then((data) => child.stdin!.end(data), reject);
    });
    return true;
  } catch {
    return false;
  }
}
