/**
 * The built-in neural embedder (`MEMSVC_EMBEDDER=builtin-minilm`): all-MiniLM-L6-v2 with int8 weights,
 * run in process by onnxruntime: natively where the build embedded onnxruntime-node's library for the
 * platform, else by onnxruntime-web's single-threaded WebAssembly (minilm_runtime.ts). Its files are
 * embedded in the binary (minilm_assets.ts); nothing is downloaded at run time.
 *
 * The model's graph is rewritten at load so its embedding tables stay int8 in memory (minilm_graph.ts);
 * the vectors are the same to the bit.
 *
 * A text is WordPiece-tokenised (wordpiece.ts), cut to MAX_TOKENS, and its vector is the mean of the
 * model's last hidden states over its tokens, L2-normalised: sentence-transformers' pooling for this model.
 * Texts are run in batches of similar length (sorted, so little padding is computed), one run at a time:
 * a session runs one call at a time, and a run holds the event loop. A query waits at most for the one
 * batch in flight: a long embed call queues its batches one by one, not all at once, and each run starts
 * from setImmediate (minilm_runtime.ts), so a search's request is read between two batches.
 *
 * The model loads on the first embed or on load(), which the server calls at start without awaiting it:
 * loading takes seconds, and a server whose writes go to the vector backlog (vector_backlog.ts) need not
 * wait for it; a server on another embedder never evaluates onnxruntime at all.
 *
 * The same class runs the other built-in BERT-sized model, bge-small (bge_small.ts), given its
 * `NeuralModel`: another file, [CLS] pooling and a query instruction.
 */
import type * as Ort from "onnxruntime-web/wasm";
import { type Embedder, EmbedderError, normalize } from "./embedder.ts";
import { MINILM_FILES, miniLMAsset } from "./minilm_assets.ts";
import { int8Gathers } from "./minilm_graph.ts";
import { loadNative, loadWasm, type ModelRuntime } from "./minilm_runtime.ts";
import { WordPieceTokenizer } from "./wordpiece.ts";

export const MINILM_DIMENSIONS = 384;
/** Changes with anything that moves vectors: the model file, tokenisation, MAX_TOKENS or pooling. */
export const MINILM_ID = `builtin-minilm-l6-int8-v1:${MINILM_DIMENSIONS}`;
/** sentence-transformers' max_seq_length for this model; longer texts are cut. */
export const MAX_TOKENS = 256;
/**
 * Texts per model run: large enough to amortise a run, small enough that a run (which holds the event
 * loop, and which a query waits behind) stays short: 8 turns of ~40 tokens are ~100 ms natively.
 */
const BATCH = 8;

interface Loaded {
  runtime: ModelRuntime;
  tokenizer: WordPieceTokenizer;
}

/** A BERT-sized sentence-embedding model run by onnxruntime over the WordPiece vocabulary. */
export interface NeuralModel {
  /** MEMSVC_EMBEDDER's name, in errors. */
  name: string;
  id: string;
  dimensions: number;
  /** The gzipped ONNX file among MINILM_FILES. */
  file: string;
  /** The ONNX bytes from elsewhere than `file` (scripts/bench/model_vectors.ts's models). */
  load?: () => Promise<Uint8Array>;
  /** The text's vector: the mean of the last hidden states, or the [CLS] token's. */
  pooling: "mean" | "cls";
  /** Put before a query (embedQuery), as the model was trained to retrieve with. */
  queryPrefix: string;
  /** Rewrites the graph at load (minilm_graph.ts for MiniLM's). */
  rewrite?: (model: Uint8Array) => Uint8Array;
}

export const MINILM_MODEL: NeuralModel = {
  name: "builtin-minilm",
  id: MINILM_ID,
  dimensions: MINILM_DIMENSIONS,
  file: MINILM_FILES.model,
  pooling: "mean",
  queryPrefix: "",
  rewrite: (model) => int8Gathers(model).model,
};

export interface MiniLMOptions {
  /** Which runtime to use; unset: native where built in and loadable, else wasm. */
  runtime?: "native" | "wasm";
  /** The model (default all-MiniLM-L6-v2). */
  model?: NeuralModel;
}

export class MiniLMEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly model: NeuralModel;
  readonly #options: MiniLMOptions;
  #loaded: Promise<Loaded> | undefined;
  /** The tail of the run queue: each run starts after the one before settles. */
  #tail: Promise<unknown> = Promise.resolve();
  /** Why the native runtime was not used, when it was wanted and failed. */
  nativeError: Error | undefined;

  constructor(options: MiniLMOptions = {}) {
    this.#options = options;
    this.model = options.model ?? MINILM_MODEL;
    this.id = this.model.id;
    this.dimensions = this.model.dimensions;
  }

  /** Loads the model now rather than on the first embed (a no-op once loaded); resolves to the runtime's name. */
  load(): Promise<"native" | "wasm"> {
    return this.#load().then((l) => l.runtime.name);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    let loaded: Loaded;
    try {
      loaded = await this.#load();
    } catch (err) {
      throw new EmbedderError(`${this.model.name}: loading the model failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const encoded = texts.map((text, i) => ({ i, ids: loaded.tokenizer.encode(text, MAX_TOKENS) }));
    encoded.sort((a, b) => a.ids.length - b.ids.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < encoded.length; start += BATCH) {
      const batch = encoded.slice(start, start + BATCH);
      const vectors = await this.#serial(() => run(loaded.runtime, batch.map((b) => b.ids), this.model));
      batch.forEach((b, j) => (out[b.i] = vectors[j]!));
    }
    return out;
  }

  /** A search's query, with the model's query instruction. */
  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embed([this.model.queryPrefix + text]))[0]!;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  #load(): Promise<Loaded> {
    this.#loaded ??= (async () => {
      const [ort, model, vocab] = await Promise.all([
        import("onnxruntime-web/wasm") as Promise<typeof Ort>,
        this.model.load ? this.model.load() : miniLMAsset(this.model.file),
        miniLMAsset(MINILM_FILES.vocab),
      ]);
      const graph = this.model.rewrite ? this.model.rewrite(model) : model;
      let runtime: ModelRuntime | undefined;
      if (this.#options.runtime !== "wasm") {
        try {
          runtime = await loadNative(graph, ort);
        } catch (err) {
          if (this.#options.runtime === "native") throw err;
          this.nativeError = err as Error;
        }
        if (!runtime && this.#options.runtime === "native") {
          throw new Error("no native runtime in this build");
        }
      }
      runtime ??= await loadWasm(graph, ort);
      const tokenizer = new WordPieceTokenizer(new TextDecoder().decode(vocab));
      // Loading left ~90 MB of garbage (the compressed and decompressed model, the rewritten graph):
      // collected now, once, Bun's heap gives it back (measured: 331 → 264 MB RSS in process).
      (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
      return { runtime, tokenizer };
    })();
    this.#loaded.catch(() => (this.#loaded = undefined));
    return this.#loaded;
  }
}

/** One model run over texts of similar length, padded to the longest; pooled, normalised vectors. */
async function run(runtime: ModelRuntime, batch: number[][], model: NeuralModel): Promise<Float32Array[]> {
  const rows = batch.length;
  const width = Math.max(...batch.map((ids) => ids.length));
  const ids = new BigInt64Array(rows * width);
  const mask = new BigInt64Array(rows * width);
  batch.forEach((tokens, r) => {
    tokens.forEach((t, c) => {
      ids[r * width + c] = BigInt(t);
      mask[r * width + c] = 1n;
    });
  });
  let data: Float32Array;
  try {
    data = await runtime.run(ids, mask, new BigInt64Array(rows * width), rows, width);
  } catch (err) {
    throw new EmbedderError(`${model.name}: model run failed: ${(err as Error).message}`, { cause: err });
  }
  const d = model.dimensions;
  return batch.map((tokens, r) => {
    const sum = new Float64Array(d);
    const pooled = model.pooling === "cls" ? 1 : tokens.length;
    for (let c = 0; c < pooled; c++) {
      const at = (r * width + c) * d;
      for (let k = 0; k < d; k++) sum[k]! += data[at + k]!;
    }
    const v = new Float32Array(d);
    for (let k = 0; k < d; k++) v[k] = sum[k]! / pooled;
    normalize(v);
    return v;
  });
}
