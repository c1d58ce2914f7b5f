/**
 * The WebAssembly renderers gitsync runs in process (wasm/<module>/, Go sources pinned by their go.mod),
 * built with the machine's Go toolchain by scripts/testenv/go_build.ts into the shared Go cache outside
 * the repo, then copied with the matching `wasm_exec.js` (Go's JavaScript glue, which must come from the
 * toolchain that built the module) into .cache/wasm/, where the build embeds them and the renderers read
 * them when running from source.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { binaryPath, type Component, ensureBinary } from "../testenv/go_build.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the build and the renderers (controller/gitsync/render/wasm_assets.ts) find the modules. */
export const WASM_OUT = ".cache/wasm";

export const KUSTOMIZE_WASM: Component = {
  name: "kustomize-wasm",
  version: "api-v0.18.0",
  recipeDir: join(ROOT, "wasm", "kustomize"),
  pkg: ".",
  target: { goos: "js", goarch: "wasm" },
  output: "kustomize.wasm",
};

/**
 * Helm's template engine at the test helm binary's version (test/helm/go.mod). The overlay replaces
 * the two files whose client-go imports (the scheme, discovery) would link every Kubernetes API type:
 * chartutil/capabilities.go (a hand-kept VersionSet) and engine/lookup_func.go (plain GETs).
 */
export const HELM_WASM: Component = {
  name: "helm-wasm",
  version: "v3.16.4",
  recipeDir: join(ROOT, "wasm", "helm"),
  pkg: ".",
  target: { goos: "js", goarch: "wasm" },
  output: "helm.wasm",
  linkerVars: { "helm.sh/helm/v3/internal/version.version": "v3.16.4" },
  overlay: {
    "helm.sh/helm/v3/pkg/chartutil/capabilities.go": "_overlay/capabilities.go",
    "helm.sh/helm/v3/pkg/engine/lookup_func.go": "_overlay/lookup_func.go",
  },
};

export const WASM_RENDERERS: Component[] = [KUSTOMIZE_WASM, HELM_WASM];

/** The files a binary embeds for the renderers, relative to the repo root. */
export const WASM_ASSETS = [...WASM_RENDERERS.map((c) => c.output!), "wasm_exec.js"].map((f) =>
  `${WASM_OUT}/${f}`
);

function goRoot(): string {
  return execFileSync("go", ["env", "GOROOT"], {
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  })
    .trim();
}

function copyIfChanged(from: string, to: string) {
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) return;
  copyFileSync(from, to);
}

/** Builds what is missing or stale (minutes when cold, nothing when cached) and refreshes .cache/wasm. */
export async function ensureWasmRenderers(log: (line: string) => void = (l) => console.error(l)) {
  const out = join(ROOT, WASM_OUT);
  mkdirSync(out, { recursive: true });
  for (const c of WASM_RENDERERS) {
    const built = await ensureBinary(c, log);
    const glue = join(dirname(binaryPath(c)), "wasm_exec.js");
    if (!built.cached || !existsSync(glue)) {
      copyFileSync(join(goRoot(), "lib", "wasm", "wasm_exec.js"), glue);
      log(`built ${c.output} in ${built.seconds.toFixed(0)} s`);
    }
    copyIfChanged(built.path, join(out, c.output!));
    copyIfChanged(glue, join(out, "wasm_exec.js"));
  }
}
