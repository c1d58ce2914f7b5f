/**
 * The built-in static embedder (`MEMSVC_EMBEDDER=builtin-static`): all-MiniLM-L6-v2 distilled into one
 * vector per WordPiece token, so a text's vector is a lookup and an average, not a model run.
 *
 * The table is derived at build time from the pinned int8 model (scripts/lib/minilm_static.ts): each
 * vocabulary token's vector is the model's mean-pooled output for `[CLS] token [SEP]` (what the model
 * says of the token alone), less the mean over whole-word tokens (the direction every vector shares,
 * which otherwise makes unrelated texts look alike), stored as int8 with a scale per row (11.8 MB;
 * 30,522 × 384). A text is cut into words like the hashing embedder's (lower-cased letter and digit
 * runs, apostrophes dropped); stop words are left out unless nothing else is left; each word is split
 * into WordPiece tokens, a word's vector is the mean of its tokens' rows and the text's is the mean of its
 * words', L2-normalised. That keeps what MiniLM knows of words ("dog" near "puppy", "called" near
 * "named"), and loses word order and context: on the conversational recall set it sits between the
 * hashing embedder and the full model (docs/benchmarks.md), at the hashing embedder's cost per text.
 *
 * Deterministic for a given table: integer rows, fixed accumulation order, IEEE arithmetic. A table
 * derived on wasm instead of the native runtime differs in about 2 of 100,000 int8 values, by one step
 * (hidden states within 4e-6): the same space. Changing the derivation, the tokenisation or the pooling
 * changes the vector space and must change STATIC_ID.
 */
import { join } from "node:path";
import { canMapFiles, fileCrc32, mapFile, writeMappedFile } from "../../../internal/platform/mod.ts";
import { STOP_WORDS } from "./builtin.ts";
import { type Embedder, EmbedderError, normalize } from "./embedder.ts";
import { MINILM_FILES, miniLMAsset, miniLMGzipTrailer } from "./minilm_assets.ts";
import { WordPieceTokenizer } from "./wordpiece.ts";

export const STATIC_DIMENSIONS = 384;
export const STATIC_ID = `builtin-static-minilm-l6-v1:${STATIC_DIMENSIONS}`;
/** A word longer than this is not looked up (WordPiece maps it to [UNK] anyway). */
const MAX_WORD = 100;

/** The table file: a header, a float32 scale per row, then int8 rows. */
export const STATIC_MAGIC = 0x53544d31; // "STM1"

export interface StaticTable {
  rows: number;
  dims: number;
  scales: Float32Array;
  values: Int8Array;
}

/** Reads the table file's bytes (after decompression). */
export function readStaticTable(bytes: Uint8Array): StaticTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || view.getUint32(0, true) !== STATIC_MAGIC) {
    throw new Error("not a static embedding table");
  }
  const rows = view.getUint32(4, true), dims = view.getUint32(8, true);
  if (bytes.byteLength !== 12 + rows * 4 + rows * dims) throw new Error("static embedding table: wrong size");
  // Views of the bytes where the scales are aligned (a decompressed buffer starts at 0): no 12 MB copy.
  const at = (bytes.byteOffset + 12) % 4 === 0 ? bytes : bytes.slice();
  const start = at === bytes ? bytes.byteOffset + 12 : 12;
  return {
    rows,
    dims,
    scales: new Float32Array(at.buffer, start, rows),
    values: new Int8Array(at.buffer, start + rows * 4, rows * dims),
  };
}

/** The table file's bytes for rows of float vectors (centred already), quantised to int8 per row. */
export function writeStaticTable(vectors: Float32Array, rows: number, dims: number): Uint8Array {
  const out = new Uint8Array(12 + rows * 4 + rows * dims);
  const view = new DataView(out.buffer);
  view.setUint32(0, STATIC_MAGIC, true);
  view.setUint32(4, rows, true);
  view.setUint32(8, dims, true);
  const values = new Int8Array(out.buffer, 12 + rows * 4, rows * dims);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let k = 0; k < dims; k++) max = Math.max(max, Math.abs(vectors[r * dims + k]!));
    const scale = max / 127 || 1;
    view.setFloat32(12 + r * 4, scale, true);
    for (let k = 0; k < dims; k++) values[r * dims + k] = Math.round(vectors[r * dims + k]! / scale);
  }
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter and digit runs, apostrophes dropped ("don't" is "dont", a stop word). */
function words(text: string): string[] {
  return text.toLowerCase().replace(/['\u2019]/g, "").match(WORD) ?? [];
}

/** A text's vector from a loaded table; exported for the build's check and the tests. */
export function embedStatic(table: StaticTable, tokenizer: WordPieceTokenizer, text: string): Float32Array {
  const { dims, scales, values } = table;
  const sum = new Float64Array(dims);
  const all = words(text);
  let kept = all.filter((w) => !STOP_WORDS.has(w));
  if (kept.length === 0) kept = all;
  for (const word of kept) {
    if (word.length > MAX_WORD) continue;
    const ids = tokenizer.encode(word, MAX_WORD + 2);
    const pieces = ids.length - 2; // without [CLS] and [SEP]
    for (let p = 1; p <= pieces; p++) {
      const id = ids[p]!;
      const scale = scales[id]! / pieces;
      const at = id * dims;
      for (let k = 0; k < dims; k++) sum[k]! += values[at + k]! * scale;
    }
  }
  const v = Float32Array.from(sum);
  // Nothing to look up (empty or punctuation only): one fixed direction, as the hashing embedder does.
  if (!normalize(v)) v[0] = 1;
  return v;
}

/** The decompressed table kept in the data directory and mapped (staticTableBytes). */
export const STATIC_TABLE_FILE = "embedder-static-table.bin";

export interface StaticTableOptions {
  /** Where the decompressed table is kept (the data directory); unset: decompressed in memory. */
  dir?: string;
  /** Maps a file (default: internal/platform's mapFile where the runtime can map; else nothing is kept). */
  map?: (path: string) => Uint8Array | undefined;
}

/**
 * The table's bytes. Decompressed in memory, the 11.8 MB table is resident for the life of the
 * process and costs about 150 ms of CPU at every start, though searches read a few of its 30,522 rows.
 * So where files can be mapped, the decompressed table is kept in `dir` and mapped: only the rows
 * read become resident. The kept file is used only when its CRC-32 and length (read through a small
 * buffer, not the mapping) are those the embedded gzip file's trailer gives, so a table from another
 * build, or a damaged file, is replaced.
 */
export async function staticTableBytes(options: StaticTableOptions = {}): Promise<Uint8Array> {
  const map = options.map ?? (canMapFiles() ? mapFile : undefined);
  const want = options.dir && map ? await miniLMGzipTrailer(MINILM_FILES.staticTable) : undefined;
  if (!want || !options.dir || !map) return await miniLMAsset(MINILM_FILES.staticTable);
  const file = join(options.dir, STATIC_TABLE_FILE);
  let kept: { crc: number; bytes: number } | undefined;
  try {
    kept = fileCrc32(file);
  } catch {
    // None yet, or unreadable: written again below.
  }
  if (kept && kept.crc === want.crc && kept.bytes === want.bytes) {
    const mapped = map(file);
    if (mapped?.byteLength === kept.bytes) return mapped;
  }
  const bytes = await miniLMAsset(MINILM_FILES.staticTable);
  try {
    // Renamed over the old file, and in small writes so a fault maps a few rows' pages, not 2 MB
    // (mapped_file.ts).
    await writeMappedFile(file, bytes);
    const mapped = map(file);
    if (mapped?.byteLength === bytes.byteLength) return mapped;
  } catch {
    // Not writable (a read-only data directory): decompressed in memory, as off Bun.
  }
  return bytes;
}

/** The table and the vocabulary's tokenizer, from the embedded files (or .cache/minilm from source). */
export async function loadStaticModel(options: StaticTableOptions = {}): Promise<StaticModel> {
  const [table, vocab] = await Promise.all([
    staticTableBytes(options),
    miniLMAsset(MINILM_FILES.vocab),
  ]);
  const tokenizer = new WordPieceTokenizer(new TextDecoder().decode(vocab));
  const loaded = readStaticTable(table);
  if (loaded.rows !== tokenizer.size || loaded.dims !== STATIC_DIMENSIONS) {
    throw new Error(`table of ${loaded.rows} × ${loaded.dims} for a vocabulary of ${tokenizer.size}`);
  }
  return { table: loaded, tokenizer };
}

export interface StaticModel {
  table: StaticTable;
  tokenizer: WordPieceTokenizer;
}

export class StaticEmbedder implements Embedder {
  readonly id = STATIC_ID;
  readonly dimensions = STATIC_DIMENSIONS;
  #loaded: Promise<StaticModel> | undefined;

  /** @param options.dir the data directory, where the decompressed table is kept (staticTableBytes). */
  constructor(readonly options: StaticTableOptions = {}) {}

  /** Loads the table now rather than on the first embed (tens of milliseconds). */
  async load(): Promise<void> {
    await this.#load();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    let loaded: StaticModel;
    try {
      loaded = await this.#load();
    } catch (err) {
      throw new EmbedderError(`builtin-static: loading the table failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return texts.map((t) => embedStatic(loaded.table, loaded.tokenizer, t));
  }

  #load(): Promise<StaticModel> {
    this.#loaded ??= loadStaticModel(this.options);
    this.#loaded.catch(() => (this.#loaded = undefined));
    return this.#loaded;
  }
}
