/**
 * The files of the built-in neural embedder: embedded in the compiled memsvc by scripts/build.ts, and
 * read from .cache/minilm (written by scripts/lib/minilm.ts) and node_modules when running from source.
 * Nothing is downloaded at run time.
 */
import { readFile } from "node:fs/promises";
import { embeddedFile } from "../../../internal/platform/mod.ts";

const ROOT = new URL("../../../", import.meta.url);

/** Base name (what the binary embeds) => where it is when running from source. */
const FROM_SOURCE = {
  "minilm-l6-int8.onnx": ".cache/minilm/minilm-l6-int8.onnx",
  "minilm-l6-vocab.txt": ".cache/minilm/minilm-l6-vocab.txt",
  "ort-wasm-simd-threaded.wasm": "node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
} as const;

export type MiniLMAsset = keyof typeof FROM_SOURCE;

export async function miniLMAsset(name: MiniLMAsset): Promise<Uint8Array> {
  const embedded = embeddedFile(name);
  if (embedded) return new Uint8Array(await embedded.arrayBuffer());
  try {
    return new Uint8Array(await readFile(new URL(FROM_SOURCE[name], ROOT)));
  } catch (err) {
    throw new Error(
      `${name} is missing: fetch the model with \`deno run -A scripts/lib/minilm.ts\` (or \`deno task build memsvc\`) (${
        (err as Error).message
      })`,
    );
  }
}
