/**
 * The Go-built wasm renderers and Go's `wasm_exec.js` glue: embedded in the compiled gitsync-manager by
 * scripts/build.ts, and read from .cache/wasm (written by scripts/lib/wasm.ts) when running from source.
 */
import { readFile } from "node:fs/promises";
import { embeddedFile } from "../../../internal/platform/mod.ts";

const FROM_SOURCE = new URL("../../../.cache/wasm/", import.meta.url);

export async function wasmAsset(name: "kustomize.wasm" | "helm.wasm" | "wasm_exec.js"): Promise<Uint8Array> {
  const embedded = embeddedFile(name);
  if (embedded) return new Uint8Array(await embedded.arrayBuffer());
  try {
    return new Uint8Array(await readFile(new URL(name, FROM_SOURCE)));
  } catch (err) {
    throw new Error(
      `${name} is missing: build the wasm renderers with \`deno task build gitsync-manager\` (needs Go) (${
        (err as Error).message
      })`,
    );
  }
}
