/**
 * builtin-static's token table (server/memsvc/embeddings/static_minilm.ts), derived at build time from the
 * pinned MiniLM model in .cache/minilm: the model's mean-pooled output for `[CLS] token [SEP]`, for each of
 * the 30,522 vocabulary tokens, less the mean over whole-word tokens, as int8 rows with a scale each.
 * About a minute on the native runtime (three on wasm), once: the result is kept gzipped in .cache/minilm
 * and is rebuilt only when the model or this derivation changes (DERIVATION is part of the file's check);
 * a copy is kept outside the clone (derived_cache.ts), so a fresh clone copies it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type * as Ort from "onnxruntime-web/wasm";
import {
  MINILM_FILES,
  MINILM_SOURCE_DIR,
  miniLMAsset,
} from "../../server/memsvc/embeddings/minilm_assets.ts";
import { int8Gathers } from "../../server/memsvc/embeddings/minilm_graph.ts";
import { loadNative, loadWasm } from "../../server/memsvc/embeddings/minilm_runtime.ts";
import {
  readStaticTable,
  STATIC_DIMENSIONS,
  writeStaticTable,
} from "../../server/memsvc/embeddings/static_minilm.ts";
import { stem, STOP_WORDS } from "../../internal/fulltext/analyzer.ts";
import type { DerivedCache } from "./derived_cache.ts";
import { encodeNeighbours } from "../../server/memsvc/memory/query_expansion.ts";

/** Bump with any change below that moves the table (and then STATIC_ID). */
const DERIVATION = "static-v1";
/** Ids below this are [PAD], [unused…] and the special tokens: left out of the mean. */
const FIRST_WORD_ID = 1_000;
const BATCH = 64;

/** Whether `path` holds a whole gzip file stamped as derived from `source`. */
function current(path: string, source: string): boolean {
  const stamp = `${path}.source`;
  if (!existsSync(path) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== source) return false;
  try {
    gunzipSync(readFileSync(path));
    return true;
  } catch {
    return false; // damaged: derive again
  }
}

/** `path` as derived from `source`: as it is, copied from `kept`, or derived (and then kept). */
async function ensureDerived(
  path: string,
  source: string,
  kept: DerivedCache | undefined,
  derive: () => Promise<void>,
) {
  if (current(path, source)) return;
  if (kept?.restore(path, source)) {
    writeFileSync(`${path}.source`, source);
    if (current(path, source)) return;
  }
  await derive();
  writeFileSync(`${path}.source`, source);
  kept?.keep(path, source);
}

/** Makes `${out}/${MINILM_FILES.staticTable}` hold the table for the model at hand. */
export async function ensureStaticTable(out: string, log: (line: string) => void, kept?: DerivedCache) {
  const path = join(out, MINILM_FILES.staticTable);
  const model = await miniLMAsset(MINILM_FILES.model);
  const source = `${DERIVATION} ${createHash("sha256").update(model).digest("hex")}`;
  await ensureDerived(path, source, kept, async () => {
    log("deriving builtin-static's token table from the model (about a minute, once)");
    const table = await deriveTable(model);
    writeFileSync(`${path}.tmp`, gzipSync(table, { level: 9 }));
    renameSync(`${path}.tmp`, path);
  });
}

/** Neighbours kept per stem. */
const NEIGHBOURS = 5;

/**
 * Makes `${out}/${MINILM_FILES.wordNeighbours}` hold, for the stem of each whole English word of the
 * vocabulary (letters only, not a stop word), the stems of its NEIGHBOURS nearest other words by the
 * table's cosine, with the cosine: the keyword tier's query expansion (keyword_index.ts). Every pair of
 * 21,571 words, about a minute or two, once (same stamp rule as the table).
 */
export async function ensureWordNeighbours(out: string, log: (line: string) => void, kept?: DerivedCache) {
  const path = join(out, MINILM_FILES.wordNeighbours);
  const tableBytes = gunzipSync(readFileSync(join(out, MINILM_FILES.staticTable)));
  const source = `${DERIVATION} neighbours-v2 ${createHash("sha256").update(tableBytes).digest("hex")}`;
  await ensureDerived(path, source, kept, () => {
    log("deriving the keyword tier's word neighbours from the token table (a minute or two, once)");
    return deriveNeighbours(path, tableBytes);
  });
}

async function deriveNeighbours(path: string, tableBytes: Uint8Array) {
  const table = readStaticTable(tableBytes);
  const vocab = new TextDecoder().decode(await miniLMAsset(MINILM_FILES.vocab)).split("\n");
  const d = table.dims;
  const words: number[] = [];
  for (let t = FIRST_WORD_ID; t < table.rows; t++) {
    if (/^[a-z]{2,}$/.test(vocab[t]!) && !STOP_WORDS.has(vocab[t]!)) words.push(t);
  }
  const n = words.length;
  const unit = new Float32Array(n * d);
  words.forEach((t, i) => {
    let norm = 0;
    for (let k = 0; k < d; k++) norm += (table.values[t * d + k]! * table.scales[t]!) ** 2;
    const scale = table.scales[t]! / (Math.sqrt(norm) || 1);
    for (let k = 0; k < d; k++) unit[i * d + k] = table.values[t * d + k]! * scale;
  });
  const stems = words.map((t) => stem(vocab[t]!));
  // Best NEIGHBOURS per word: parallel arrays, insertion into a short sorted list.
  const bestIds = new Int32Array(n * NEIGHBOURS).fill(-1);
  const bestSims = new Float32Array(n * NEIGHBOURS).fill(-Infinity);
  const offer = (i: number, j: number, sim: number) => {
    const at = i * NEIGHBOURS;
    if (sim <= bestSims[at + NEIGHBOURS - 1]!) return;
    let k = NEIGHBOURS - 1;
    while (k > 0 && bestSims[at + k - 1]! < sim) {
      bestSims[at + k] = bestSims[at + k - 1]!;
      bestIds[at + k] = bestIds[at + k - 1]!;
      k--;
    }
    bestSims[at + k] = sim;
    bestIds[at + k] = j;
  };
  for (let i = 0; i < n; i++) {
    const a = i * d;
    for (let j = i + 1; j < n; j++) {
      if (stems[i] === stems[j]) continue;
      const b = j * d;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let k = 0; k < d; k += 4) {
        s0 += unit[a + k]! * unit[b + k]!;
        s1 += unit[a + k + 1]! * unit[b + k + 1]!;
        s2 += unit[a + k + 2]! * unit[b + k + 2]!;
        s3 += unit[a + k + 3]! * unit[b + k + 3]!;
      }
      const sim = s0 + s1 + s2 + s3;
      offer(i, j, sim);
      offer(j, i, sim);
    }
  }
  // By stem: words sharing a stem pool their neighbours, best cosine first.
  const byStem = new Map<string, Map<string, number>>();
  for (let i = 0; i < n; i++) {
    const list = byStem.get(stems[i]!) ?? byStem.set(stems[i]!, new Map()).get(stems[i]!)!;
    for (let k = 0; k < NEIGHBOURS; k++) {
      const j = bestIds[i * NEIGHBOURS + k]!;
      if (j < 0 || stems[j] === stems[i]) continue;
      const sim = Math.round(bestSims[i * NEIGHBOURS + k]! * 100) / 100;
      if (sim > (list.get(stems[j]!) ?? -Infinity)) list.set(stems[j]!, sim);
    }
  }
  const best = new Map<string, [string, number][]>();
  for (const [s, list] of byStem) {
    best.set(s, [...list].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, NEIGHBOURS));
  }
  writeFileSync(`${path}.tmp`, gzipSync(encodeNeighbours(best, NEIGHBOURS), { level: 9 }));
  renameSync(`${path}.tmp`, path);
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
  const started = performance.now();
  await ensureStaticTable(MINILM_SOURCE_DIR, (l) => console.log(l));
  await ensureWordNeighbours(MINILM_SOURCE_DIR, (l) => console.log(l));
  console.log(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
