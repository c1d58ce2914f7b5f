/**
 * The built-in neural embedder (`MEMSVC_EMBEDDER=builtin-minilm`): all-MiniLM-L6-v2 with int8 weights,
 * run in process by onnxruntime-web's single-threaded WebAssembly backend (the same code in Deno, Bun and
 * the compiled binary, on Linux and macOS alike: no native library to ship). Its files are embedded in the
 * binary (minilm_assets.ts); nothing is downloaded at run time.
 *
 * A text is WordPiece-tokenised (wordpiece.ts), cut to MAX_TOKENS, and its vector is the mean of the
 * model's last hidden states over its tokens, L2-normalised: sentence-transformers' pooling for this model.
 * Texts are run in batches of similar length (sorted, so little padding is computed), one run at a time:
 * the wasm backend is single-threaded and a session runs one call at a time.
 *
 * The runtime is imported and the session loaded on the first embed, not at start: loading takes
 * seconds, a server whose writes go to the vector backlog (vector_backlog.ts) need not wait for it, and
 * a server on another embedder never evaluates onnxruntime at all.
 */
import type * as Ort from "onnxruntime-web/wasm";
import { type Embedder, EmbedderError, normalize } from "./embedder.ts";
import { miniLMAsset } from "./minilm_assets.ts";
import { WordPieceTokenizer } from "./wordpiece.ts";

export const MINILM_DIMENSIONS = 384;
/** Changes with anything that moves vectors: the model file, tokenisation, MAX_TOKENS or pooling. */
export const MINILM_ID = `builtin-minilm-l6-int8-v1:${MINILM_DIMENSIONS}`;
/** sentence-transformers' max_seq_length for this model; longer texts are cut. */
export const MAX_TOKENS = 256;
/** Texts per model run: large enough to amortise a run, small enough to keep a query's wait short. */
const BATCH = 16;

interface Loaded {
  ort: typeof Ort;
  session: Ort.InferenceSession;
  tokenizer: WordPieceTokenizer;
}

export class MiniLMEmbedder implements Embedder {
  readonly id = MINILM_ID;
  readonly dimensions = MINILM_DIMENSIONS;
  #loaded: Promise<Loaded> | undefined;
  /** The tail of the run queue: each run starts after the one before settles. */
  #tail: Promise<unknown> = Promise.resolve();

  /** Loads the model now rather than on the first embed (a no-op once loaded). */
  load(): Promise<void> {
    return this.#load().then(() => undefined);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    let loaded: Loaded;
    try {
      loaded = await this.#load();
    } catch (err) {
      throw new EmbedderError(`builtin-minilm: loading the model failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const encoded = texts.map((text, i) => ({ i, ids: loaded.tokenizer.encode(text, MAX_TOKENS) }));
    encoded.sort((a, b) => a.ids.length - b.ids.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < encoded.length; start += BATCH) {
      const batch = encoded.slice(start, start + BATCH);
      const vectors = await this.#serial(() => run(loaded, batch.map((b) => b.ids)));
      batch.forEach((b, j) => (out[b.i] = vectors[j]!));
    }
    return out;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  #load(): Promise<Loaded> {
    this.#loaded ??= (async () => {
      const [ort, wasm, model, vocab] = await Promise.all([
        import("onnxruntime-web/wasm"),
        miniLMAsset("ort-wasm-simd-threaded.wasm"),
        miniLMAsset("minilm-l6-int8.onnx"),
        miniLMAsset("minilm-l6-vocab.txt"),
      ]);
      // One thread: no workers (which a compiled binary could not start from a wasm glue file), and
      // the binary's other work keeps the second core. The wasm is handed over, never fetched.
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.wasmBinary = wasm;
      const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
      return { ort, session, tokenizer: new WordPieceTokenizer(new TextDecoder().decode(vocab)) };
    })();
    this.#loaded.catch(() => (this.#loaded = undefined));
    return this.#loaded;
  }
}

/** One model run over texts of similar length, padded to the longest; mean-pooled, normalised vectors. */
async function run({ ort, session }: Loaded, batch: number[][]): Promise<Float32Array[]> {
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
  const dims = [rows, width];
  let outputs: Ort.InferenceSession.ReturnType;
  try {
    outputs = await session.run({
      input_ids: new ort.Tensor("int64", ids, dims),
      attention_mask: new ort.Tensor("int64", mask, dims),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(rows * width), dims),
    });
  } catch (err) {
    throw new EmbedderError(`builtin-minilm: model run failed: ${(err as Error).message}`, { cause: err });
  }
  const hidden = outputs.last_hidden_state!;
  const data = hidden.data as Float32Array;
  const d = MINILM_DIMENSIONS;
  const vectors = batch.map((tokens, r) => {
    const sum = new Float64Array(d);
    for (let c = 0; c < tokens.length; c++) {
      const at = (r * width + c) * d;
      for (let k = 0; k < d; k++) sum[k]! += data[at + k]!;
    }
    const v = new Float32Array(d);
    for (let k = 0; k < d; k++) v[k] = sum[k]! / tokens.length;
    normalize(v);
    return v;
  });
  hidden.dispose();
  return vectors;
}
