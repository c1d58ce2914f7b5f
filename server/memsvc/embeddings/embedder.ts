/**
 * The contract every embedder implements, and the vector helpers the store and search share.
 * Vectors are L2-normalised, so cosine similarity is a plain dot product.
 */

export interface Embedder {
  /**
   * Stable identity of the vector space, e.g. "builtin-hash-v1:512" or
   * "openai:text-embedding-3-small:1536"; vectors of another id are never compared.
   */
  readonly id: string;
  readonly dimensions: number;
  /** L2-normalised vectors, one per text, in order. Throws EmbedderError on failure. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * A search query's vector, for a model trained to embed queries apart from what they find (bge's
   * instruction). Absent: a query is embedded as any text.
   */
  embedQuery?(text: string): Promise<Float32Array>;
}

/** Any failure to produce embeddings: transport, remote error, timeout or a malformed answer. */
export class EmbedderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EmbedderError";
  }
}

/** Cosine similarity of two L2-normalised vectors of the same length (their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  if (n !== b.length) throw new RangeError(`cosine: vectors of ${n} and ${b.length} dimensions`);
  // Four accumulators let the engine overlap the multiply-adds; noticeably faster on long scans.
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/** Scales `v` in place to unit length; returns false (and leaves it) when it is all zeros. */
export function normalize(v: Float32Array | Float64Array): boolean {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0 || !Number.isFinite(sum)) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= scale;
  return true;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The vector as little-endian float32 bytes (a copy; the stored `bytea` form). */
export function toBytes(v: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
  const out = new Uint8Array(v.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i]!, true);
  return out;
}

/**
 * Reads little-endian float32 bytes back into a vector. Always copies: database drivers hand out
 * views into shared, pooled buffers at arbitrary (often unaligned) offsets, which a Float32Array
 * cannot view and which must not be aliased.
 */
export function fromBytes(b: Uint8Array): Float32Array {
  if (b.byteLength % 4 !== 0) {
    throw new EmbedderError(`vector bytes: length ${b.byteLength} is not a multiple of 4`);
  }
  // new Uint8Array(b) copies into a fresh, aligned buffer; Buffer#slice would not (it is a view).
  if (LITTLE_ENDIAN) return new Float32Array(new Uint8Array(b).buffer);
  const out = new Float32Array(b.byteLength / 4);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
