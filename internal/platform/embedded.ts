import { bunGlobal } from "./runtime.ts";

/**
 * A file embedded in a compiled binary by scripts/build.ts, by its base name (for example
 * "pglite.wasm"). Returns undefined when running from source, where callers load the file the
 * usual way (from node_modules or the repo).
 */
export function embeddedFile(name: string): Blob | undefined {
  return bunGlobal()?.embeddedFiles?.find((f) => f.name === name);
}
