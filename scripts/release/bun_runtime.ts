/**
 * The Bun executable a cross-compiled binary is built on: the `@oven/bun-<platform>` package at the
 * version package-lock.json pins for `bun`, fetched once from the npm registry into a cache outside the
 * repo and checked against the lock's integrity, so every target's runtime is as pinned as the host's.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { npmTarball } from "../lib/npm_tarball.ts";
import { tgzMembers } from "../lib/tar.ts";
import { type Target, TARGETS } from "./targets.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function releaseCacheRoot(): string {
  return process.env.RELEASE_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolkit-release");
}

export interface LockedPackage {
  name: string;
  version: string;
  integrity: string;
  license?: string;
}

/** package-lock.json's `packages` map: "node_modules/<name>" => entry. */
export function lockPackages(): Record<string, LockedPackage & { resolved?: string }> {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; integrity?: string; license?: string; name?: string }>;
  };
  const out: Record<string, LockedPackage> = {};
  for (const [key, p] of Object.entries(lock.packages)) {
    if (!key || !p.version) continue;
    const name = p.name ?? key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    out[key] = { name, version: p.version, integrity: p.integrity ?? "", license: p.license };
  }
  return out;
}

/** The runtime package of `target` as the lock pins it; it must match the `bun` that builds. */
export function runtimePackage(target: Target): LockedPackage {
  const packages = lockPackages();
  const name = TARGETS[target].runtimePackage;
  const locked = packages[`node_modules/${name}`];
  const bun = packages["node_modules/bun"];
  if (!locked?.integrity || !bun) throw new Error(`package-lock.json pins no ${name}`);
  if (locked.version !== bun.version) {
    throw new Error(`package-lock.json pins ${name} ${locked.version} but bun ${bun.version}`);
  }
  return locked;
}

/** The path of `target`'s Bun executable, fetched and unpacked on first use. */
export async function bunRuntime(target: Target, log: (line: string) => void): Promise<string> {
  const pkg = runtimePackage(target);
  const dir = join(releaseCacheRoot(), "bun");
  const path = join(dir, `${pkg.name.split("/").pop()}-${pkg.version}`);
  const stamp = `${path}.integrity`;
  if (existsSync(path) && existsSync(stamp) && readFileSync(stamp, "utf8") === pkg.integrity) return path;
  const tgz = await npmTarball(pkg, dir, log);
  const bin = tgzMembers(tgz, ["package/bin/bun"]).get("package/bin/bun")!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${path}.tmp`, bin);
  chmodSync(`${path}.tmp`, 0o755);
  renameSync(`${path}.tmp`, path);
  writeFileSync(stamp, pkg.integrity);
  return path;
}
