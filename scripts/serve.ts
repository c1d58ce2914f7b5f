/**
 * `npm start` / `deno task serve`: builds dist/memsvc when its sources changed, then runs
 * `dist/memsvc serve` in the foreground on its embedded database (Ctrl-C stops it).
 * Extra arguments go to `memsvc serve`, e.g. `npm start -- --port 8080`.
 */
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const build = spawnSync(join(ROOT, "node_modules", ".bin", "deno"), [
  "run",
  "--allow-all",
  "scripts/build.ts",
  "--if-stale",
  "memsvc",
], {
  cwd: ROOT,
  stdio: "inherit",
});
if (build.status !== 0) process.exit(build.status ?? 1);

const child = spawn(join(ROOT, "dist", "memsvc"), ["serve", ...process.argv.slice(2)], { stdio: "inherit" });
// The terminal delivers Ctrl-C to the whole process group; forward TERM ourselves.
process.on("SIGTERM", () => child.kill("SIGTERM"));
process.on("SIGINT", () => {});
child.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
