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
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countJunit } from "./lib/junit.ts";
import { provision } from "./testenv/provision.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const ARTIFACTS = join(ROOT, "test-artifacts");
const CODE_DIRS = ["cmd", "internal", "server", "controller", "scripts", "test", "web"];
/** Browser code, type-checked on its own (JSX, DOM lib) with deno.dashboard.json. */
const BROWSER_DIRS = ["web"];

function run(cmd: string, args: string[], quiet = false): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    const sink = (d: Buffer) => {
      output += d;
      if (!quiet) process.stdout.write(d);
    };
    child.stdout.on("data", sink);
    child.stderr.on("data", sink);
    child.on("error", (err) => resolve({ code: 127, output: String(err) }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
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

  process.stdout.write("== tests\n");
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const junit = join(ARTIFACTS, "junit.xml");
  // test/harness/skip.ts writes the reason of every skip here, for the summary.
  const skipLog = join(ARTIFACTS, "skips.txt");
  process.env.TEST_SKIP_LOG = skipLog;
  const targets = paths.length ? paths : CODE_DIRS.filter(hasTypeScript);
  const testRun = built
    ? await run(DENO, ["test", "--allow-all", "--no-check", `--junit-path=${junit}`, ...targets])
    : { code: 1, output: "" };
  let counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[], skips: [] as string[] };
  try {
    counts = countJunit(readFileSync(junit, "utf8"));
  } catch {
    if (built) counts.failures.push("test run produced no report (see output above)");
    counts.failed += built ? 1 : 0;
  }
  // A non-zero exit with no failing case (an uncaught error between tests) is still a failure.
  if (testRun.code !== 0 && counts.failed === 0 && built) {
    counts.failed++;
    counts.failures.push(`deno test exited ${testRun.code}`);
  }

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
  process.stdout.write(`\n(${seconds} s; JUnit report: test-artifacts/junit.xml)\n`);
  process.stdout.write(`${passed} passed, ${failed} failed, ${counts.skipped} skipped\n`);
  process.exitCode = failed ? 1 : 0;
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
