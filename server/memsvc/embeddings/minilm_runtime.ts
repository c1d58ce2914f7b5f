/**
 * The two runtimes the built-in MiniLM runs on, behind one `run`:
 *
 * - native: onnxruntime-node's library and binding for this platform (linux-x64, linux-arm64,
 *   darwin-arm64), embedded compressed by the build. At first use they are written to
 *   ${XDG_CACHE_HOME:-~/.cache}/memsvc/onnxruntime-<version>-<platform>/ (checked against their pinned
 *   sha256 every start, rewritten when they differ) and loaded with process.dlopen. Its integer GEMMs use
 *   AVX2: a 10-token query costs a quarter of what wasm does, and batches three times less.
 * - wasm: onnxruntime-web's single-threaded SIMD build, in process. The fallback where no native
 *   runtime was built in or it cannot be loaded (e.g. a cache directory on a noexec mount).
 *
 * Both are single-threaded: the binary's other work (HTTP, the database) keeps the second core.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { setImmediate } from "node:timers";
import { isMainThread } from "node:worker_threads";
import type * as Ort from "onnxruntime-web/wasm";
import {
  hostPlatform,
  MINILM_FILES,
  miniLMAsset,
  miniLMFile,
  NATIVE_PLATFORMS,
  ORT_NATIVE_VERSION,
} from "./minilm_assets.ts";

export interface ModelRuntime {
  readonly name: "native" | "wasm";
  /** last_hidden_state for int64 input_ids / attention_mask / token_type_ids of shape [rows, width]. */
  run(
    ids: BigInt64Array,
    mask: BigInt64Array,
    types: BigInt64Array,
    rows: number,
    width: number,
  ): Promise<Float32Array>;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Where the native files are written: a directory per version and platform under the user's cache. */
export function nativeDir(cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache")): string {
  return join(cache, "memsvc", `onnxruntime-${ORT_NATIVE_VERSION}-${hostPlatform()}`);
}

/** The sha256 of the file at `path`, read in chunks (no 46 MB buffer); undefined when absent. */
function fileSha256(path: string): string | undefined {
  let fd;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const hash = createHash("sha256");
    const chunk = new Uint8Array(1 << 20);
    for (let n; (n = readSync(fd, chunk)) > 0;) hash.update(chunk.subarray(0, n));
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `path` hold the file whose sha256 is `want`, decompressing the embedded copy only when it does
 * not (tmp file + rename: a reader never sees half). The common case, a file already in place, reads it
 * once to check it and allocates nothing big: decompressed buffers would stay in the heap's RSS.
 */
async function place(path: string, want: string, bytes: () => Promise<Uint8Array | undefined>) {
  if (fileSha256(path) === want) return true;
  const data = await bytes();
  if (!data) return false;
  if (sha256(data) !== want) throw new Error(`${path}: embedded file does not match its pinned sha256`);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o755 });
  renameSync(tmp, path);
  return true;
}

/** The binding's session, as onnxruntime-node's own backend uses it. */
interface NativeSession {
  loadModel(buffer: ArrayBufferLike, byteOffset: number, byteLength: number, options: object): void;
  run(
    feeds: Record<string, Ort.Tensor>,
    fetches: Record<string, null>,
    options: object,
  ): Record<string, Ort.Tensor>;
}

/**
 * Writes this platform's native files to `dir` (each checked against its pin, rewritten when it
 * differs); the binding's path, or undefined when this build has no native runtime for the platform.
 */
export async function placeNative(dir = nativeDir()): Promise<string | undefined> {
  const platform = hostPlatform();
  const pinned = NATIVE_PLATFORMS[platform];
  if (!pinned) return undefined;
  mkdirSync(dir, { recursive: true });
  // The binding finds the library next to itself (its RUNPATH is $ORIGIN).
  const placed = await place(
    join(dir, pinned.library),
    pinned.librarySha256,
    () => miniLMFile(MINILM_FILES.nativeLibrary(platform)),
  ) && await place(
    join(dir, "onnxruntime_binding.node"),
    pinned.bindingSha256,
    () => miniLMFile(MINILM_FILES.nativeBinding(platform)),
  );
  if (!placed) return undefined;
  return join(dir, "onnxruntime_binding.node");
}

interface NativeBinding {
  initOrtOnce(logLevel: number, tensor: typeof Ort.Tensor, isMainThread: boolean): void;
  InferenceSession: new () => NativeSession;
}

/** The binding, loaded once per process (a second dlopen of it is refused, or worse); undefined: none here. */
let binding: Promise<NativeBinding | undefined> | undefined;

function nativeBinding(ort: typeof Ort): Promise<NativeBinding | undefined> {
  binding ??= (async () => {
    const path = await placeNative();
    if (!path) return undefined;
    const module = { exports: {} as Record<string, unknown> };
    process.dlopen(module, path);
    const api = module.exports as unknown as NativeBinding;
    api.initOrtOnce(3, /* errors only */ ort.Tensor, isMainThread);
    return api;
  })();
  binding.catch(() => (binding = undefined));
  return binding;
}

/**
 * The native runtime, or undefined when this build has none for this platform. `options` override the
 * session's (scripts/bench/minilm_cost.ts measures the memory ones).
 */
export async function loadNative(
  model: Uint8Array,
  ort: typeof Ort,
  options: Record<string, unknown> = {},
): Promise<ModelRuntime | undefined> {
  const api = await nativeBinding(ort);
  if (!api) return undefined;
  const session = new api.InferenceSession();
  session.loadModel(model.buffer, model.byteOffset, model.byteLength, {
    executionProviders: ["cpu"],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    ...options,
  });
  return {
    name: "native",
    run(ids, mask, types, rows, width) {
      const dims = [rows, width];
      // The binding runs synchronously, holding the event loop for the batch (tens of ms). It starts from
      // setImmediate, as onnxruntime-node's own backend does: between two batches of a long embed call,
      // pending I/O (a search's request) runs and its query is queued ahead of the next batch.
      return new Promise((resolve, reject) =>
        setImmediate(() => {
          try {
            const out = session.run(
              {
                input_ids: new ort.Tensor("int64", ids, dims),
                attention_mask: new ort.Tensor("int64", mask, dims),
                token_type_ids: new ort.Tensor("int64", types, dims),
              },
              { last_hidden_state: null },
              {},
            );
            resolve(out.last_hidden_state!.data as Float32Array);
          } catch (err) {
            reject(err);
          }
        })
      );
    },
  };
}

export async function loadWasm(model: Uint8Array, ort: typeof Ort): Promise<ModelRuntime> {
  // One thread: no workers (which a compiled binary could not start from a wasm glue file). The wasm
  // is handed over, never fetched.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmBinary = await miniLMAsset(MINILM_FILES.wasm);
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
  return {
    name: "wasm",
    async run(ids, mask, types, rows, width) {
      const dims = [rows, width];
      // As the native run: let pending I/O in before a run (onnxruntime-web's run holds the event loop too).
      await new Promise((resolve) => setImmediate(resolve));
      const outputs = await session.run({
        input_ids: new ort.Tensor("int64", ids, dims),
        attention_mask: new ort.Tensor("int64", mask, dims),
        token_type_ids: new ort.Tensor("int64", types, dims),
      });
      const hidden = outputs.last_hidden_state!;
      const data = (hidden.data as Float32Array).slice();
      hidden.dispose();
      return data;
    },
  };
}
