/**
 * Provisions what the tests need before they run, printing a line per step: Debian packages
 * (installed with apt-get as root or through passwordless sudo) and the test servers built from
 * pinned Go modules (servers.ts, cached outside the repo). The test command (`npm test`) runs this
 * first; on its own:
 *
 *   deno run --allow-all scripts/testenv/provision.ts
 *
 * When something cannot be provisioned here (not root and no passwordless sudo, no Go), it throws a
 * ProvisionError whose one message names what is missing and the command that installs it.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { cachedBinary, ensureBinary } from "./go_build.ts";
import { TEST_SERVERS } from "./servers.ts";

const exec = promisify(execFile);

/** A Debian package the tests use, and the file that shows it is installed. */
export interface DebianPackage {
  name: string;
  /** Present when the package is installed. */
  file: string;
  /** What needs it, for the messages. */
  for: string;
}

export const DEBIAN_PACKAGES: DebianPackage[] = [
  { name: "postgresql-15", file: "/usr/lib/postgresql/15/bin/initdb", for: "the PostgreSQL tests" },
  { name: "chromium", file: "/usr/bin/chromium", for: "the browser tests" },
  { name: "kubectl", file: "/usr/bin/kubectl", for: "the kubectl comparisons (the machine image has it)" },
  { name: "prometheus", file: "/usr/bin/prometheus", for: "the edgectl metrics tests (a real Prometheus)" },
  // Only its systemd-analyze runs (verify, security --offline); no service manager is started.
  { name: "systemd", file: "/usr/bin/systemd-analyze", for: "systemd-analyze in the edgectl unit tests" },
  {
    name: "qemu-user",
    file: "/usr/bin/qemu-aarch64",
    for: "the release tests (the linux-arm64 binary under emulation)",
  },
  { name: "shellcheck", file: "/usr/bin/shellcheck", for: "the release tests (install.sh is POSIX sh)" },
  { name: "jq", file: "/usr/bin/jq", for: "the quick starts in README and docs/vault.md, run by tests" },
];

/** Go is needed only when a test server is not cached yet; this is the oldest that builds them all. */
const GO_MIN = [1, 24] as const;

export class ProvisionError extends Error {}

type Log = (line: string) => void;

/** How to run a command as root here: directly, through `sudo -n`, or not at all. */
type RootRunner = (cmd: string, args: string[]) => string[];

function rootRunner(): RootRunner | null {
  if (process.getuid?.() === 0) return (cmd, args) => [cmd, ...args];
  const sudo = spawnSync("sudo", ["-n", "true"], { stdio: "ignore" });
  if (sudo.status === 0) return (cmd, args) => ["sudo", "-n", cmd, ...args];
  return null;
}

async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    await exec(argv[0]!, argv.slice(1), { env, maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const detail = (e.stderr ?? "").trim().split("\n").slice(-5).join("\n") || e.message;
    throw new ProvisionError(`${argv.join(" ")} failed:\n${detail}`);
  }
}

export async function provisionDebianPackages(
  log: Log,
  packages = DEBIAN_PACKAGES,
  /** How to run apt-get as root; null when this user cannot. */
  asRoot: RootRunner | null = rootRunner(),
): Promise<void> {
  const missing = packages.filter((p) => !existsSync(p.file));
  if (missing.length === 0) {
    log(`provision: Debian packages ${packages.map((p) => p.name).join(", ")}: installed`);
    return;
  }
  const names = missing.map((p) => p.name);
  if (!asRoot) {
    throw new ProvisionError(
      `missing Debian packages ${names.join(", ")} (${missing.map((p) => p.for).join(", ")}), and ` +
        `installing them needs root: run \`sudo apt-get update && sudo apt-get install -y ` +
        `--no-install-recommends ${names.join(" ")}\`, then the tests again`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  log(`provision: installing Debian packages ${names.join(", ")} (apt-get)`);
  const started = performance.now();
  await run(asRoot("apt-get", ["update", "-qq"]), env);
  await run(asRoot("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...names]), env);
  const still = missing.filter((p) => !existsSync(p.file));
  if (still.length) {
    throw new ProvisionError(
      `apt-get installed ${names.join(", ")} but ${still.map((p) => p.file).join(", ")} is missing`,
    );
  }
  log(`provision: installed ${names.join(", ")} in ${seconds(started)} s`);
}

/** The installed Go's version, or undefined without Go. */
async function goVersion(): Promise<[number, number] | undefined> {
  try {
    const { stdout } = await exec("go", ["env", "GOVERSION"], {
      env: { ...process.env, GOTOOLCHAIN: "local" },
    });
    const m = /^go(\d+)\.(\d+)/.exec(stdout.trim());
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

export async function provisionTestServers(log: Log, components = TEST_SERVERS): Promise<void> {
  const toBuild = components.filter((c) => !cachedBinary(c));
  for (const c of components.filter((c) => !toBuild.includes(c))) {
    log(`provision: ${c.name} ${c.version}: cached`);
  }
  if (toBuild.length === 0) return;
  const go = await goVersion();
  const wanted = `${GO_MIN[0]}.${GO_MIN[1]}`;
  if (!go || go[0] < GO_MIN[0] || (go[0] === GO_MIN[0] && go[1] < GO_MIN[1])) {
    throw new ProvisionError(
      `${
        toBuild.map((c) => c.name).join(", ")
      } must be built from their Go modules, which needs Go >= ${wanted} ` +
        `on PATH (${go ? `found go${go.join(".")}` : "go not found"}): install Go ${wanted} or later ` +
        "(Debian bookworm's golang-go is too old; the official tarball unpacked into /usr/local/go works), " +
        "then the tests again",
    );
  }
  for (const c of toBuild) {
    log(`provision: building ${c.name} ${c.version} from its Go module (cached afterwards)`);
    const r = await ensureBinary(c, (line) => log(`provision:   ${line.trim()}`));
    log(`provision: ${c.name} ${c.version}: built in ${r.seconds.toFixed(0)} s`);
  }
}

/** Everything, in order: the packages first (quick), then the Go builds (minutes when cold). */
export async function provision(log: Log = (l) => console.log(l)): Promise<void> {
  await provisionDebianPackages(log);
  await provisionTestServers(log);
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(0);
}

if (import.meta.main) {
  try {
    await provision();
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  }
}
