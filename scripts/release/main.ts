/**
 * `deno task release [--version X.Y.Z]`: the release's files in dist/release/, built offline.
 *
 *   <tool>_<version>_<os>_<arch>.tar.gz   per tool and target: the executable, LICENSE, THIRD_PARTY_NOTICES.md
 *   <tool>_<version>.cdx.json             per tool: CycloneDX SBOM of what its executables carry
 *   install.sh, allowed_signers           the install script (stamped with version, URL and key), the key
 *   SHA256SUMS, SHA256SUMS.sig            checksums of all the above, signed with `ssh-keygen -Y sign`
 *   oci/<tool>/                           OCI image layouts (linux amd64 + arm64 under one index) of the servers
 *   <chart>-<version>.tgz                 the Helm charts at the release's version
 *   gitsync-manager_<version>_install.yaml  deploy/gitsync/install.yaml with the image pinned by digest
 *
 * The executables are compiled with scripts/lib/compile.ts, as `deno task build` does, for linux-x64,
 * linux-arm64, darwin-x64 and darwin-arm64 (each on that platform's pinned Bun runtime), stamped with the
 * version and commit. The signing key is an OpenSSH private key: --signing-key FILE or RELEASE_SIGNING_KEY.
 *
 *   deno task release --version 1.2.0
 *   deno task release --target linux-x64 --tool memsvc,vault --unsigned   # a partial, unsigned build
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWebApps, compile, prepareAssets } from "../lib/compile.ts";
import { assetsFor, type Tool, TOOLS } from "../lib/tools.ts";
import { releaseArchive } from "./archive.ts";
import { bunRuntime } from "./bun_runtime.ts";
import { thirdParty } from "./inputs.ts";
import { noticesText } from "./notices.ts";
import { sbomJson } from "./sbom.ts";
import { allowedSignersLine, sha256sums, signFile } from "./signing.ts";
import { archiveName, executablePlatform, type Target, TARGET_NAMES, TARGETS } from "./targets.ts";
import { CHARTS, releaseCharts } from "./charts.ts";
import { buildImages, IMAGE_TOOLS, type ImageTool } from "./images.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const PARALLEL = 2;

export interface ReleaseOptions {
  version: string;
  targets: Target[];
  tools: Tool[];
  out: string;
  /** OpenSSH private key (file or text); neither with `unsigned`. */
  signingKey?: { file?: string; text?: string };
  unsigned: boolean;
  /** owner/name on GitHub: where install.sh downloads from and the images' source annotation. */
  repository: string;
  images: boolean;
}

const USAGE = `usage: deno task release [--version X.Y.Z] [--target T,...] [--tool T,...] [--out DIR]
                         [--signing-key FILE | --unsigned] [--repository OWNER/NAME] [--no-images]
targets: ${TARGET_NAMES.join(", ")} (default: all)
tools:   ${TOOLS.join(", ")} (default: all)
The signing key may also come from RELEASE_SIGNING_KEY (the key's text).`;

export class UsageError extends Error {}

/** Flags into options; throws UsageError before anything is built. */
export function parseArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): ReleaseOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--unsigned" || a === "--no-images") {
      switches.add(a);
      continue;
    }
    const m = /^--(version|target|tool|out|signing-key|repository)(?:=(.*))?$/.exec(a);
    if (!m) throw new UsageError(`unknown argument ${a}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === "") throw new UsageError(`--${m[1]} needs a value`);
    flags.set(m[1]!, value);
  }
  const version = (flags.get("version") ??
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version).replace(/^v/, "");
  if (!SEMVER.test(version)) throw new UsageError(`--version needs a semver like 1.2.3, not '${version}'`);
  const list = <T extends string>(name: string, all: readonly T[]): T[] => {
    const given = flags.get(name);
    if (!given) return [...all];
    const items = given.split(",").map((s) => s.trim()).filter(Boolean);
    for (const item of items) {
      if (!all.includes(item as T)) throw new UsageError(`unknown ${name} '${item}' (${all.join(", ")})`);
    }
    return all.filter((x) => items.includes(x));
  };
  const unsigned = switches.has("--unsigned");
  const keyFile = flags.get("signing-key");
  const keyText = env.RELEASE_SIGNING_KEY;
  if (unsigned && keyFile) throw new UsageError("--unsigned and --signing-key exclude each other");
  if (!unsigned && !keyFile && !keyText) {
    throw new UsageError("no signing key: pass --signing-key FILE, set RELEASE_SIGNING_KEY, or --unsigned");
  }
  const repository = flags.get("repository") ?? env.GITHUB_REPOSITORY ?? "toolkit/toolkit";
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    throw new UsageError(`--repository '${repository}' is not OWNER/NAME`);
  }
  return {
    version,
    targets: list("target", TARGET_NAMES),
    tools: list("tool", TOOLS),
    out: resolve(ROOT, flags.get("out") ?? join("dist", "release")),
    signingKey: unsigned ? undefined : keyFile ? { file: resolve(keyFile) } : { text: keyText },
    unsigned,
    repository,
    images: !switches.has("--no-images"),
  };
}

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
}

/** The commit and its time (the archives' and images' mtime unless SOURCE_DATE_EPOCH says otherwise). */
export function sourceRevision(): { commit: string; epoch: number } {
  const commit = git(["rev-parse", "HEAD"]);
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]) !== "";
  const epoch = Number(process.env.SOURCE_DATE_EPOCH || git(["log", "-1", "--format=%ct"]));
  return { commit: dirty ? `${commit}-dirty` : commit, epoch };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function release(o: ReleaseOptions, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const { commit, epoch } = sourceRevision();
  const stamp = { version: o.version, commit };
  rmSync(o.out, { recursive: true, force: true });
  const work = join(o.out, ".work");
  mkdirSync(work, { recursive: true });

  await prepareAssets(o.tools, o.targets, log);
  await bundleWebApps(o.tools, log);
  const runtimes = new Map<Target, string>();
  for (const t of o.targets) runtimes.set(t, await bunRuntime(t, log));

  const jobs = o.targets.flatMap((target) => o.tools.map((tool) => ({ tool, target })));
  const bundled = new Map<Tool, string[]>();
  const queue = [...jobs];
  const failures: string[] = [];
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const { tool, target } = job;
      const dir = join(work, target);
      mkdirSync(dir, { recursive: true });
      const metafile = join(dir, `${tool}.meta.json`);
      const r = await compile({
        tool,
        assets: assetsFor(tool, target),
        outfile: join(dir, tool),
        target: { bun: TARGETS[target].bun, executable: runtimes.get(target)! },
        stamp,
        metafile,
      });
      if (!r.ok) {
        failures.push(`${tool} ${target}:\n${r.output.trim()}`);
        continue;
      }
      // The header must name the target's OS and CPU: a wrong runtime would otherwise ship unnoticed.
      const header = readFileSync(join(dir, tool)).subarray(0, 64);
      const got = executablePlatform(header);
      if (got !== target) {
        failures.push(`${tool} ${target}: the executable's header says ${got ?? "unknown"}`);
      }
      const meta = JSON.parse(readFileSync(metafile, "utf8")) as { inputs: Record<string, unknown> };
      bundled.set(tool, Object.keys(meta.inputs));
      log(`compiled ${tool} for ${target} in ${(r.ms / 1000).toFixed(1)} s`);
    }
  }));
  if (failures.length) throw new Error(`compile failed:\n${failures.join("\n")}`);

  const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
  const files: string[] = [];
  const sizes: [string, number][] = [];
  for (const tool of o.tools) {
    const archives: Record<string, string> = {};
    for (const target of o.targets) {
      const inputs = { bundled: bundled.get(tool)!, assets: assetsFor(tool, target) };
      const notices = noticesText(tool, o.version, thirdParty(tool, [target], inputs));
      const binary = { name: tool, data: readFileSync(join(work, target, tool)) };
      const name = archiveName(tool, o.version, target);
      const tgz = releaseArchive({ binary, license, notices }, epoch);
      writeFileSync(join(o.out, name), tgz);
      archives[name] = createHash("sha256").update(tgz).digest("hex");
      files.push(join(o.out, name));
      sizes.push([name, tgz.length]);
    }
    const parts = thirdParty(tool, o.targets, {
      bundled: bundled.get(tool)!,
      assets: [...new Set(o.targets.flatMap((t) => assetsFor(tool, t)))],
    });
    const sbom = join(o.out, `${tool}_${o.version}.cdx.json`);
    writeFileSync(
      sbom,
      sbomJson({
        tool,
        version: o.version,
        commit,
        timestamp: new Date(epoch * 1000),
        targets: o.targets,
        archives,
        source: `https://github.com/${o.repository}`,
      }, parts),
    );
    files.push(sbom);
  }

  let digests: Record<string, string> = {};
  if (o.images) {
    const imageTools = o.tools.filter((t): t is ImageTool => (IMAGE_TOOLS as readonly string[]).includes(t));
    const linux = o.targets.filter((t) => TARGETS[t].debian);
    if (imageTools.length && linux.length) {
      digests = await buildImages({
        tools: imageTools,
        targets: linux,
        binary: (tool, target) => join(work, target, tool),
        out: join(o.out, "oci"),
        version: o.version,
        commit,
        epoch,
        source: `https://github.com/${o.repository}`,
        log,
      });
    }
  }

  const chartTools = o.tools.filter((t): t is keyof typeof CHARTS => t in CHARTS);
  if (chartTools.length) {
    files.push(...await releaseCharts({ tools: chartTools, version: o.version, out: o.out, digests, log }));
  }

  // Sign first: install.sh carries the key that verifies the signature, and is itself in SHA256SUMS.
  const sums = join(o.out, "SHA256SUMS");
  let allowedSigners = "";
  if (o.signingKey) {
    allowedSigners = await allowedSignersLine(o.signingKey);
    writeFileSync(join(o.out, "allowed_signers"), `${allowedSigners}\n`);
    files.push(join(o.out, "allowed_signers"));
  }
  const installSh = readFileSync(join(ROOT, "scripts", "release", "install.sh"), "utf8")
    .replace("@RELEASE_VERSION@", o.version)
    .replace("@RELEASE_BASE_URL@", `https://github.com/${o.repository}/releases/download`)
    .replace("@ALLOWED_SIGNERS@", allowedSigners.replaceAll("'", ""));
  writeFileSync(join(o.out, "install.sh"), installSh, { mode: 0o755 });
  files.push(join(o.out, "install.sh"));
  writeFileSync(sums, await sha256sums(files));
  if (o.signingKey) await signFile(sums, o.signingKey);
  rmSync(work, { recursive: true, force: true });

  log(
    `release ${o.version} (${commit}) in ${o.out}, ${((performance.now() - started) / 1000).toFixed(0)} s:`,
  );
  for (const [name, size] of sizes) log(`  ${name.padEnd(44)} ${mb(size).padStart(9)}`);
  log(
    `  binaries: ${o.tools.length * o.targets.length}; ${o.unsigned ? "UNSIGNED" : "signed SHA256SUMS.sig"}`,
  );
}

if (import.meta.main) {
  let options: ReleaseOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`release: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  try {
    await release(options, (line) => console.log(`release: ${line.trim()}`));
  } catch (err) {
    console.error(`release: ${(err as Error).message}`);
    process.exit(1);
  }
  process.exit(0);
}
