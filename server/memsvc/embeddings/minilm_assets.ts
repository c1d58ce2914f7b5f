/**
 * The files of the built-in neural embedder: embedded in the compiled memsvc by scripts/build.ts, and
 * read from .cache/minilm (written by scripts/lib/minilm.ts) when running from source. Nothing is
 * downloaded at run time.
 *
 * The large ones are stored compressed (that keeps the binary's growth within issue 25's 40 MB): the
 * model and the wasm runtime with gzip, onnxruntime's native library with brotli (46 MB → 14 MB on
 * Linux x64). They are decompressed in memory when the model loads.
 */
import { open, readFile } from "node:fs/promises";
import { brotliDecompress, gunzip } from "node:zlib";
import { promisify } from "node:util";
import { embeddedFile } from "../../../internal/platform/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
/** Where scripts/lib/minilm.ts writes them, relative to the repo root. */
export const MINILM_SOURCE_DIR = ".cache/minilm";

/** onnxruntime-node's version, whose native runtime the build fetches (the npm package's binaries). */
export const ORT_NATIVE_VERSION = "1.30.0";

/**
 * The platforms with a native runtime in that package: where it keeps them, the library's name as its
 * binding looks for it (next to itself), and the pinned sha256 of each file.
 */
export const NATIVE_PLATFORMS: Record<string, NativePlatform> = {
  "linux-x64": {
    dir: "linux/x64",
    library: "libonnxruntime.so.1",
    librarySha256: "ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23",
    bindingSha256: "ccdc60b981d93a490cf9513d3f583547252b6e285b72988a96a494f2f006c7b8",
  },
  "linux-arm64": {
    dir: "linux/arm64",
    library: "libonnxruntime.so.1",
    librarySha256: "1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76",
    bindingSha256: "afec78dc11d38dc81605b068cefe1fc73ffe77ca240c15468aa40786150beac8",
  },
  "darwin-arm64": {
    dir: "darwin/arm64",
    library: "libonnxruntime.1.dylib",
    librarySha256: "685d2be5dba1309c89d3a5324b7fd06a5c42f1a61bfea32d14c4cc28d072121d",
    bindingSha256: "a3f993357759b06ae2411f70af60f5e041d04521ea7f0d12cb7546e411a527dd",
  },
};

export interface NativePlatform {
  dir: string;
  library: string;
  librarySha256: string;
  bindingSha256: string;
}

/** This process's platform key, e.g. linux-x64. */
export const hostPlatform = () => `${process.platform}-${process.arch}`;

/** The base names the binary embeds (they must be distinctive) and .cache/minilm holds. */
export const MINILM_FILES = {
  model: "minilm-l6-int8.onnx.gz",
  /** builtin-bge-small's model (bge_small.ts), which shares the vocabulary. */
  bgeSmall: "bge-small-en-v15-int8.onnx.gz",
  vocab: "minilm-l6-vocab.txt",
  /** builtin-static's token table, derived from the model at build time (scripts/lib/minilm_static.ts). */
  staticTable: "minilm-l6-static-table.bin.gz",
  /** The keyword tier's query expansion: each stem's nearest other stems by that table (query_expansion.ts). */
  wordNeighbours: "minilm-l6-word-neighbours.bin.gz",
  wasm: "minilm-ort-wasm.wasm.gz",
  nativeLibrary: (platform: string) => `minilm-ort-${platform}.lib.br`,
  nativeBinding: (platform: string) => `minilm-ort-${platform}.node.gz`,
};

const gunzipAsync = promisify(gunzip);
const brotliAsync = promisify(brotliDecompress);

/** The file's bytes, decompressed by its suffix; undefined when neither embedded nor in .cache/minilm. */
export async function miniLMFile(name: string): Promise<Uint8Array | undefined> {
  const embedded = embeddedFile(name);
  let bytes: Uint8Array;
  if (embedded) bytes = new Uint8Array(await embedded.arrayBuffer());
  else {
    try {
      bytes = new Uint8Array(await readFile(new URL(`${MINILM_SOURCE_DIR}/${name}`, ROOT)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }
  if (name.endsWith(".gz")) return new Uint8Array(await gunzipAsync(bytes));
  if (name.endsWith(".br")) return new Uint8Array(await brotliAsync(bytes));
  return bytes;
}

/** As miniLMFile, for the files every build has: missing, it says how to fetch them. */
export async function miniLMAsset(name: string): Promise<Uint8Array> {
  const bytes = await miniLMFile(name);
  if (bytes) return bytes;
  throw new Error(
    `${name} is missing: fetch the model with \`deno run -A scripts/lib/minilm.ts\` (or \`deno task build memsvc\`)`,
  );
}

/**
 * A gzipped file's trailer, read without decompressing it: the CRC-32 and the length (mod 2^32) of
 * what it decompresses to. Undefined when the file is absent or not gzip.
 */
export async function miniLMGzipTrailer(name: string): Promise<{ crc: number; bytes: number } | undefined> {
  if (!name.endsWith(".gz")) return undefined;
  const embedded = embeddedFile(name);
  let tail: Uint8Array;
  if (embedded) tail = new Uint8Array(await embedded.slice(Math.max(0, embedded.size - 8)).arrayBuffer());
  else {
    try {
      const file = await open(new URL(`${MINILM_SOURCE_DIR}/${name}`, ROOT), "r");
      try {
        const { size } = await file.stat();
        tail = new Uint8Array(8);
        await file.read(tail, 0, 8, Math.max(0, size - 8));
      } finally {
        await file.close();
      }
    } catch {
      return undefined;
    }
  }
  if (tail.byteLength !== 8) return undefined;
  const view = new DataView(tail.buffer, tail.byteOffset, 8);
  return { crc: view.getUint32(0, true), bytes: view.getUint32(4, true) };
}
