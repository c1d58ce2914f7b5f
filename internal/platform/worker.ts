/**
 * Worker scripts from source and inside a compiled binary. scripts/build.ts compiles each worker in as a
 * further entry point, where Bun finds it by its path from the repository root, not next to the module
 * that starts it.
 */
import { bunGlobal } from "./runtime.ts";

/**
 * Whether this code runs inside a `bun build --compile` binary: its entry point is in Bun's embedded file
 * system. (Not import.meta.url: the binaries are CommonJS bundles, where Bun writes each module's URL at
 * build time, the build machine's path.)
 */
export function isCompiledBinary(): boolean {
  return bunGlobal()?.main?.startsWith("/$bunfs/") === true;
}

/**
 * Starts the worker script `pathFromRoot` (e.g. "controller/gitsync/render/kustomize_worker.ts"), whose
 * source is `sourceUrl` (`new URL("./x_worker.ts", import.meta.url)` in the module starting it).
 */
export function startWorker(sourceUrl: URL, pathFromRoot: string): Worker {
  const specifier = isCompiledBinary() ? `./${pathFromRoot}` : sourceUrl.href;
  return new Worker(specifier, { type: "module" });
}
