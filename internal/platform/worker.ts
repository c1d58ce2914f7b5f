/**
 * Worker scripts from source and inside a compiled binary. scripts/build.ts compiles each worker in as a
 * further entry point, where Bun finds it by its path from the repository root, not next to the module
 * that starts it (every bundled module's import.meta.url is the binary's own).
 */

/** Whether this code runs inside a `bun build --compile` binary. */
export function isCompiledBinary(): boolean {
  return import.meta.url.startsWith("file:///$bunfs/");
}

/**
 * Starts the worker script `pathFromRoot` (e.g. "controller/gitsync/render/kustomize_worker.ts"), whose
 * source is `sourceUrl` (`new URL("./x_worker.ts", import.meta.url)` in the module starting it).
 */
export function startWorker(sourceUrl: URL, pathFromRoot: string): Worker {
  const specifier = isCompiledBinary() ? `./${pathFromRoot}` : sourceUrl.href;
  return new Worker(specifier, { type: "module" });
}
