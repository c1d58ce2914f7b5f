/**
 * builtin-static's token table (server/memsvc/embeddings/static_minilm.ts), derived at build time from the
 * pinned MiniLM model in .cache/minilm: the model's mean-pooled output for `[CLS] token [SEP]`, for each of
 * the 30,522 vocabulary tokens, less the mean over whole-word tokens, as int8 rows with a scale each.
 * About a minute on the native runtime (three on wasm), once: the result is kept gzipped in .cache/minilm
 * and is rebuilt only when the model or this derivation changes (DERIVATION is part of the file's check).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type * as Ort from "onnxruntime-web/wasm";
import { MINILM_FILES, miniLMAsset } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { int8Gathers } from "../../server/memsvc/embeddings/minilm_graph.ts";
import { loadNative, loadWasm } from "../../server/memsvc/embeddings/minilm_runtime.ts";
import { STATIC_DIMENSIONS, writeStaticTable } from "../../server/memsvc/embeddings/static_minilm.ts";

/** Bump with any change below that moves the table (and then STATIC_ID). */
const DERIVATION = "static-v1";
/** Ids below this are [PAD], [unused…] and the special tokens: left out of the mean. */
const FIRST_WORD_ID = 1_000;
const BATCH = 64;

/** Makes `${out}/${MINILM_FILES.staticTable}` hold the table for the model at hand. */
export async function ensureStaticTable(out: string, log: (line: string) => void) {
  const path = join(out, MINILM_FILES.staticTable);
  const stamp = `${path}.source`;
  const model = await miniLMAsset(MINILM_FILES.model);
  const source = `${DERIVATION} ${createHash("sha256").update(model).digest("hex")}`;
  if (existsSync(path) && existsSync(stamp) && readFileSync(stamp, "utf8") === source) {
    try {
      gunzipSync(readFileSync(path));
      return;
    } catch { /* damaged: derive again */ }
  }
  log("deriving builtin-static's token table from the model (about a minute, once)");
  const table = await deriveTable(model);
  writeFileSync(`${path}.tmp`, gzipSync(table, { level: 9 }));
  renameSync(`${path}.tmp`, path);
  writeFileSync(stamp, source);
}

async function deriveTable(modelBytes: Uint8Array): Promise<Uint8Array> {
  const ort = await import("onnxruntime-web/wasm") as typeof Ort;
  const graph = int8Gathers(modelBytes).model;
  const runtime = (await loadNative(graph, ort)) ?? await loadWasm(graph, ort);
  const vocab = new TextDecoder().decode(await miniLMAsset(MINILM_FILES.vocab)).split("\n");
  if (vocab.at(-1) === "") vocab.pop();
  const cls = BigInt(vocab.indexOf("[CLS]")), sep = BigInt(vocab.indexOf("[SEP]"));
  const n = vocab.length, d = STATIC_DIMENSIONS, width = 3;
  const vectors = new Float32Array(n * d);
  for (let start = 0; start < n; start += BATCH) {
    const rows = Math.min(BATCH, n - start);
    const ids = new BigInt64Array(rows * width);
    for (let r = 0; r < rows; r++) ids.set([cls, BigInt(start + r), sep], r * width);
    const mask = new BigInt64Array(rows * width).fill(1n);
    const hidden = await runtime.run(ids, mask, new BigInt64Array(rows * width), rows, width);
    // sentence-transformers' pooling: the mean over the three positions.
    for (let r = 0; r < rows; r++) {
      for (let k = 0; k < d; k++) {
        let s = 0;
        for (let c = 0; c < width; c++) s += hidden[(r * width + c) * d + k]!;
        vectors[(start + r) * d + k] = s / width;
      }
    }
  }
  const mean = new Float64Array(d);
  let words = 0;
  for (let t = FIRST_WORD_ID; t < n; t++) {
    if (vocab[t]!.startsWith("##")) continue;
    words++;
    for (let k = 0; k < d; k++) mean[k]! += vectors[t * d + k]!;
  }
  for (let t = 0; t < n; t++) for (let k = 0; k < d; k++) vectors[t * d + k]! -= mean[k]! / words;
  return writeStaticTable(vectors, n, d);
}

if (import.meta.main) {
  const { MINILM_OUT } = await import("./minilm.ts");
  const started = performance.now();
  await ensureStaticTable(MINILM_OUT, (l) => console.log(l));
  console.log(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
