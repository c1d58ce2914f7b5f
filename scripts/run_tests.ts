/**
 * The one test command (`deno task test`, which `npm test` runs): provisions what the tests need
 * (Debian packages, test servers built from Go modules; scripts/testenv/provision.ts), builds the
 * binaries when their sources changed, runs lint, the format check and the type check, then every
 * test, and ends with the line `N passed, N failed, N skipped`, listing what failed and what was
 * skipped. Each static check counts as one test. Exit code 1 if anything failed; when provisioning
 * is impossible here it stops before the tests with one message saying what to install.
 *
 *   deno task test                    # everything
 *   deno task test internal/log test/memsvc_serve_test.ts   # some test files or folders (checks still run)
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countJunit } from "./lib/junit.ts";
import { provision } from "./testenv/provision.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const ARTIFACTS = join(ROOT, "test-artifacts");
const CODE_DIRS = ["cmd", "internal", "server", "controller", "scripts", "test", "web"];
/** Browser code, type-checked on its own (JSX, DOM lib) with deno.dashboard.json. */
const BROWSER_DIRS = ["web"];

function run(
  cmd: string,
  args: string[],
  quiet = false,
  prefix = "",
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    let partial = "";
    const sink = (d: Buffer) => {
      output += d;
      if (quiet) return;
      if (!prefix) return void process.stdout.write(d);
      // Whole lines only, each marked with its run, so parallel runs stay readable.
      const lines = (partial + d).split("\n");
      partial = lines.pop()!;
      if (lines.length) process.stdout.write(lines.map((l) => prefix + l + "\n").join(""));
    };
    child.stdout.on("data", sink);
    child.stderr.on("data", sink);
    child.on("error", (err) => resolve({ code: 127, output: String(err) }));
    child.on("close", (code) => {
      if (partial && !quiet) process.stdout.write(prefix + partial + "\n");
      resolve({ code: code ?? 1, output });
    });
  });
}

async function main() {
  const paths = process.argv.slice(2);
  const started = performance.now();
  const gates: [string, boolean][] = [];

  process.stdout.write("== provision (Debian packages, test servers)\n");
  try {
    await provision((line) => process.stdout.write(`   ${line}\n`));
  } catch (err) {
    process.stdout.write(`\nerror: ${(err as Error).message}\n\n0 passed, 1 failed, 0 skipped\n`);
    process.exitCode = 1;
    return;
  }

  const gate = async (name: string, cmd: string, args: string[], quiet = true) => {
    process.stdout.write(`== ${name}\n`);
    const r = await run(cmd, args, quiet);
    const ok = r.code === 0;
    process.stdout.write(ok ? `   ok\n` : `${quiet ? r.output.trimEnd() + "\n" : ""}   FAILED: ${name}\n`);
    gates.push([name, ok]);
    return ok;
  };

  const built = await gate("build (dist/, when stale)", DENO, [
    "run",
    "--allow-all",
    "scripts/build.ts",
    "--if-stale",
  ]);
  await gate("lint", DENO, ["lint"]);
  await gate("fmt --check", DENO, ["fmt", "--check"]);
  await gate("type check", DENO, [
    "check",
    ...CODE_DIRS.filter((d) => !BROWSER_DIRS.includes(d) && hasTypeScript(d)),
  ]);
  await gate("type check (dashboard)", DENO, ["check", "--config", "deno.dashboard.json", ...BROWSER_DIRS]);
  // The compiled binaries run on Bun, where internal/k8s sends plain requests through Bun's fetch rather
  // than node:https: its client tests run there too (Bun's runner reads node:test suites).
  await gate("k8s client tests on Bun", BUN, ["test", "--timeout", "120000", "test/k8s/k8s_client_test.ts"]);

  process.stdout.write("== tests\n");
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  // test/harness/skip.ts writes the reason of every skip here, for the summary.
  const skipLog = join(ARTIFACTS, "skips.txt");
  process.env.TEST_SKIP_LOG = skipLog;
  const targets = paths.length ? paths : CODE_DIRS.filter(hasTypeScript);
  const files = testFiles(targets);
  const shards = built ? planShards(files, Number(process.env.TEST_SHARDS) || SHARDS) : [];
  // Independent test files run in parallel processes (each file keeps its own servers and env).
  const results = await Promise.all(shards.map((shard, i) => {
    const junit = join(ARTIFACTS, `junit-${i + 1}.xml`);
    const prefix = shards.length > 1 ? `[${i + 1}] ` : "";
    return run(DENO, ["test", "--allow-all", "--no-check", `--junit-path=${junit}`, ...shard], false, prefix)
      .then((r) => ({ ...r, junit }));
  }));
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[], skips: [] as string[] };
  if (!built) {
    counts.failed++;
    counts.failures.push("tests not run: the build failed");
  }
  for (const r of results) {
    let c;
    try {
      const xml = readFileSync(r.junit, "utf8");
      c = countJunit(xml);
      recordTimings(xml);
    } catch {
      counts.failed++;
      counts.failures.push(`a test run produced no report (${r.junit}; see output above)`);
      continue;
    }
    counts.passed += c.passed;
    counts.failed += c.failed;
    counts.skipped += c.skipped;
    counts.failures.push(...c.failures);
    counts.skips.push(...c.skips);
    // A non-zero exit with no failing case (an uncaught error between tests) is still a failure.
    if (r.code !== 0 && c.failed === 0) {
      counts.failed++;
      counts.failures.push(`deno test exited ${r.code} (${r.junit})`);
    }
  }
  saveTimings();

  const gateFailures = gates.filter(([, ok]) => !ok).map(([n]) => n);
  const passed = counts.passed + gates.length - gateFailures.length;
  const failed = counts.failed + gateFailures.length;
  const failures = [...gateFailures, ...counts.failures];
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (counts.skips.length) {
    const reasons = [...new Set(readIfExists(skipLog).split("\n").filter(Boolean))];
    process.stdout.write(
      `\nSkipped:\n${counts.skips.map((s) => `  - ${s}`).join("\n")}\n` +
        (reasons.length ? `  because: ${reasons.join("; ")}\n` : ""),
    );
  }
  if (failures.length) process.stdout.write(`\nFailed:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`);
  process.stdout.write(
    `\n(${seconds} s; ${files.length} test files in ${shards.length} parallel runs; JUnit reports: test-artifacts/junit-*.xml)\n`,
  );
  process.stdout.write(`${passed} passed, ${failed} failed, ${counts.skipped} skipped\n`);
  process.exitCode = failed ? 1 : 0;
}

/** Parallel test runs: the machines here have 2 cores, and most suites wait on servers anyway. */
const SHARDS = 2;
const TIMINGS = join(ROOT, ".cache", "test-timings.json");
const TEST_FILE = /(^|[_.])test\.(ts|tsx|mts|js|mjs|jsx)$/;

/** The test files under the targets (files or folders), as deno test finds them. */
function testFiles(targets: string[]): string[] {
  const out: string[] = [];
  for (const t of targets) {
    const abs = join(ROOT, t);
    if (!statSync(abs).isDirectory()) {
      out.push(t);
      continue;
    }
    for (const f of readdirSync(abs, { recursive: true }).map(String)) {
      if (TEST_FILE.test(basename(f)) && !f.split("/").includes("node_modules")) out.push(join(t, f));
    }
  }
  return [...new Set(out)].sort();
}

const timings: Record<string, number> = (() => {
  try {
    return JSON.parse(readFileSync(TIMINGS, "utf8"));
  } catch {
    return {};
  }
})();

/**
 * Splits the files into `n` runs of about equal time (longest first, each to the least loaded run),
 * using the times of the last run; a file not timed yet counts 20 s in test/ (black-box suites
 * start servers) and 1 s elsewhere.
 */
function planShards(files: string[], n: number): string[][] {
  const cost = (f: string) => timings[f] ?? (f.startsWith("test/") ? 20 : 1);
  const shards = Array.from(
    { length: Math.max(1, Math.min(n, files.length)) },
    () => ({ files: [] as string[], load: 0 }),
  );
  for (const f of [...files].sort((a, b) => cost(b) - cost(a))) {
    const lightest = shards.reduce((a, b) => (b.load < a.load ? b : a));
    lightest.files.push(f);
    lightest.load += cost(f);
  }
  return shards.map((s) => s.files).filter((s) => s.length);
}

/** Seconds per file from a JUnit report (its top-level cases), for the next run's plan. */
function recordTimings(xml: string): void {
  const perFile: Record<string, number> = {};
  for (const m of xml.matchAll(/<testcase name="([^"]*)" classname="\.\/([^"]*)" time="([\d.]+)"/g)) {
    if (m[1]!.includes(" > ")) continue;
    perFile[m[2]!] = Math.round(((perFile[m[2]!] ?? 0) + Number(m[3])) * 100) / 100;
  }
  Object.assign(timings, perFile);
}

function saveTimings(): void {
  mkdirSync(dirname(TIMINGS), { recursive: true });
  writeFileSync(TIMINGS, JSON.stringify(timings, null, 1) + "\n");
}

function readIfExists(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Folders with TypeScript in them; deno check and deno test refuse folders with none. */
function hasTypeScript(dir: string): boolean {
  try {
    return readdirSync(join(ROOT, dir), { recursive: true }).some((f) => String(f).endsWith(".ts"));
  } catch {
    return false;
  }
}

await main();
