/**
 * The images' base: files of a few Debian packages, for one architecture, taken from the Debian archive
 * the machine's apt uses. apt runs with its own state under the release cache (its own package lists per
 * architecture, no change to the machine's apt or dpkg), so it verifies the archive's signatures as usual
 * and `apt-get download` fetches the .debs, cached by file name. Nothing is installed: the packages' files
 * are read with `dpkg-deb --fsys-tarfile` and become a layer; maintainer scripts do not run, so what
 * ca-certificates' script would generate (the CA bundle) is made here.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { tarEntries, type TarEntry } from "../lib/tar.ts";
import { releaseCacheRoot } from "./bun_runtime.ts";

const run = promisify(execFile);

/**
 * What a Bun executable needs at run time (`readelf -d`: libc, libm, libpthread, libdl, the loader — all
 * in libc6), what onnxruntime's native library in memsvc adds (libstdc++ and libgcc_s), and the data
 * every server wants: CA certificates for outgoing TLS, time zones.
 */
export const BASE_PACKAGES = ["libc6", "libgcc-s1", "libstdc++6", "ca-certificates", "tzdata"] as const;

export interface DebianPackage {
  name: string;
  version: string;
  architecture: string;
  /** The control file's fields as dpkg-deb prints them (for var/lib/dpkg/status.d, read by scanners). */
  control: string;
  entries: TarEntry[];
}

/** Refresh the private package lists after this long; within it, the same .debs are used again. */
const LISTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;

function aptOptions(arch: string): string[] {
  const root = join(releaseCacheRoot(), "apt", arch);
  for (const d of ["lists/partial", "cache/archives/partial"]) mkdirSync(join(root, d), { recursive: true });
  return [
    "-q",
    "-o",
    `APT::Architecture=${arch}`,
    "-o",
    `APT::Architectures::=${arch}`,
    "-o",
    `Dir::State::Lists=${join(root, "lists")}`,
    "-o",
    "Dir::State::status=/dev/null",
    "-o",
    `Dir::Cache=${join(root, "cache")}`,
    "-o",
    "Debug::NoLocking=1",
    // apt's download sandbox user cannot write to the cache under root's home.
    "-o",
    "APT::Sandbox::User=root",
  ];
}

function listsFresh(arch: string): boolean {
  const lists = join(releaseCacheRoot(), "apt", arch, "lists");
  const files = readdirSync(lists).filter((f) => f.endsWith("Packages") || f.includes("Packages."));
  return files.length > 0 &&
    files.every((f) => Date.now() - statSync(join(lists, f)).mtimeMs < LISTS_MAX_AGE_MS);
}

/** Files of `names` for Debian architecture `arch` (amd64, arm64), downloaded once. */
export async function debianPackages(
  arch: string,
  names: readonly string[],
  log: (line: string) => void,
): Promise<DebianPackage[]> {
  const options = aptOptions(arch);
  if (!listsFresh(arch)) {
    log(`apt-get update (${arch} package lists, kept under ${releaseCacheRoot()}/apt)`);
    await run("apt-get", [...options, "update"], { maxBuffer: 16 << 20 });
  }
  const debs = join(releaseCacheRoot(), "apt", arch, "debs");
  mkdirSync(debs, { recursive: true });
  const { stdout } = await run("apt-cache", [...options, "show", "--no-all-versions", ...names], {
    maxBuffer: 16 << 20,
  });
  const wanted = stdout.split(/\n\n+/).filter(Boolean).map((stanza) => {
    const field = (f: string) => new RegExp(`^${f}: (.*)$`, "m").exec(stanza)?.[1] ?? "";
    return { name: field("Package"), version: field("Version"), file: field("Filename").split("/").pop()! };
  });
  const missing = wanted.filter((w) => !existsSync(join(debs, w.file)));
  if (missing.length) {
    log(`apt-get download ${missing.map((m) => `${m.name}=${m.version}`).join(" ")} (${arch})`);
    await run("apt-get", [...options, "download", ...missing.map((m) => `${m.name}=${m.version}`)], {
      cwd: debs,
      maxBuffer: 16 << 20,
    });
  }
  return await Promise.all(wanted.map(async (w) => {
    const path = join(debs, w.file);
    const [tar, control] = await Promise.all([
      run("dpkg-deb", ["--fsys-tarfile", path], { encoding: "buffer", maxBuffer: 1 << 30 }),
      run("dpkg-deb", ["--field", path], { maxBuffer: 1 << 20 }),
    ]);
    const fields = /^Architecture: (.*)$/m.exec(control.stdout);
    return {
      name: w.name,
      version: w.version,
      architecture: fields?.[1] ?? arch,
      control: control.stdout,
      entries: tarEntries(new Uint8Array(tar.stdout)),
    };
  }));
}

/** Documentation a container never reads; each package's copyright file stays (its license terms). */
export function wantedInImage(path: string): boolean {
  if (/^usr\/share\/(man|info|lintian|locale|bug|gcc|gdb)(\/|$)/.test(path)) return false;
  if (/^usr\/share\/doc\//.test(path)) return /^usr\/share\/doc\/[^/]+(\/copyright)?$/.test(path);
  return true;
}

/**
 * etc/ssl/certs/ca-certificates.crt as update-ca-certificates writes it with the default configuration:
 * every certificate below usr/share/ca-certificates, in path order.
 */
export function caBundle(entries: readonly TarEntry[]): Uint8Array {
  const certs = entries
    .filter((e) =>
      e.type === "file" && e.path.startsWith("usr/share/ca-certificates/") && e.path.endsWith(".crt")
    )
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  if (certs.length === 0) throw new Error("ca-certificates holds no certificates");
  const text = certs.map((c) => new TextDecoder().decode(c.data!).trim() + "\n").join("");
  return new TextEncoder().encode(text);
}
