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
import { mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { staleTools } from "./lib/stale.ts";
import { hostPlatform } from "../server/memsvc/embeddings/minilm_assets.ts";
import { bundleWebApps, compile, type CompileResult, prepareAssets } from "./lib/compile.ts";
import { ASSETS, type Tool, TOOLS } from "./lib/tools.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PARALLEL = 2;
const log = (line: string) => console.log(`build: ${line.trim()}`);

function usage(message: string): never {
  console.error(
    `error: ${message}\nusage: deno task build [--if-stale] [tool ...]\ntools: ${TOOLS.join(", ")}`,
  );
  process.exit(2);
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
  // Before the staleness check: a rebuilt wasm module makes gitsync-manager stale, and the renderers'
  // tests read .cache/wasm when running from source.
  await prepareAssets(tools, [hostPlatform()], log);
  if (ifStale) tools = staleTools(ROOT, tools);
  if (tools.length === 0) {
    console.log("build: all binaries are up to date");
    return;
  }
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  await bundleWebApps(tools, log);
  console.log(`build: compiling ${tools.join(", ")}`);

  const queue = [...tools];
  const results: CompileResult[] = [];
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let tool = queue.shift(); tool; tool = queue.shift()) {
      const r = await compile({ tool, assets: ASSETS[tool] ?? [], outfile: `dist/${tool}` });
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
