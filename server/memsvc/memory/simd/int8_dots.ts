/**
 * Dense int8 rows of one partition and their dot products with an int16 query. Rows are laid out one
 * after another, each padded with zeros to a multiple of 16 bytes (`stride`), so the WebAssembly SIMD
 * kernel (int8_dots.wat: 16 components a step) reads them where they are, without a copy per scan.
 * About 20 times faster than the JavaScript loop: 10,000 × 384 products take ~0.4 ms.
 *
 * A partition starts in a plain array and moves into a WebAssembly.Memory of its own once it outgrows
 * one page (64 KiB, ~160 rows of 384): a memory is never smaller than a page, and a store of many
 * small partitions would otherwise pay a page each for rows the JavaScript loop scans in microseconds.
 * Where WebAssembly SIMD is not available (WebAssembly.validate refuses the kernel) every partition
 * stays on the JavaScript loop, which gives the same int32 sums.
 *
 * The query is int16, not int8: the kernel costs the same, and its rounding (1/256 of int8's) stays
 * far below the rows', so the scores' error bound, and the candidates a search must rescore, barely
 * grow over a float query's.
 *
 * Memory layout: [0, 2 * stride) the query, then the sums of one call (4 * CHUNK bytes), then rows;
 * `dotsMany` puts its queries and sums after the last row.
 */
import { INT8_DOTS_WASM } from "./int8_dots_wasm.ts";

/** Rows per kernel call (its sums' room in the memory). */
export const CHUNK = 1024;
const PAGE = 65_536;

type Dots = (q: number, rows: number, n: number, stride: number, out: number) => void;

/** Queries per `dots4` call: `dotsMany` takes them in multiples of this. */
export const QUERY_BLOCK = 4;

/** The compiled kernel, or undefined when this runtime lacks WebAssembly SIMD. */
const KERNEL: WebAssembly.Module | undefined = WebAssembly.validate(INT8_DOTS_WASM)
  ? new WebAssembly.Module(INT8_DOTS_WASM)
  : undefined;

/** Whether this runtime runs the SIMD kernel. */
export const SIMD_AVAILABLE = KERNEL !== undefined;

export class DenseRows {
  /** Bytes per row: `dim` rounded up to 16. */
  readonly stride: number;
  /** Rows held (slots), live or dead: the caller tracks which. */
  #count = 0;
  /** The partition row of each slot. */
  #rowOf = new Uint32Array(16);
  /** Where slot 0 starts in #bytes (the memory's header, or 0 in a plain array). */
  #base = 0;
  #bytes: Int8Array<ArrayBufferLike>;
  #memory: WebAssembly.Memory | undefined;
  #dots: Dots | undefined;
  #dots4: Dots | undefined;
  /** The plain array's query and sums (the memory has its own). */
  #query: Int16Array;
  #sums = new Int32Array(0);
  /** The plain array's sums of `dotsMany`. */
  #many = new Int32Array(0);

  /** `simd`: whether to move into a memory once one page is worth it (false: always the JS loop). */
  constructor(readonly dim: number, private readonly simd = SIMD_AVAILABLE) {
    this.stride = Math.ceil(dim / 16) * 16;
    this.#bytes = new Int8Array(this.stride * 4);
    this.#query = new Int16Array(this.stride);
  }

  get count(): number {
    return this.#count;
  }

  /** Whether the rows are in a WebAssembly memory (scanned by the kernel). */
  get inMemory(): boolean {
    return this.#memory !== undefined;
  }

  /** The partition row held in `slot`. */
  rowAt(slot: number): number {
    return this.#rowOf[slot]!;
  }

  /** Where `slot`'s `dim` values start in `values()`. */
  offset(slot: number): number {
    return this.#base + slot * this.stride;
  }

  /** The bytes the rows are in; take it again after `push` (a memory's grow replaces its buffer). */
  values(): Int8Array {
    return this.#bytes as Int8Array;
  }

  /** Adds a row (zeros, to be filled at `offset(slot)` in `values()`) for partition row `row`; its slot. */
  push(row: number): number {
    const slot = this.#count++;
    if (this.#rowOf.length <= slot) {
      const next = new Uint32Array(Math.ceil(this.#rowOf.length * 1.5) + 16);
      next.set(this.#rowOf);
      this.#rowOf = next;
    }
    this.#rowOf[slot] = row;
    this.#reserve(this.#count);
    return slot;
  }

  /**
   * Rows for the partition rows `rowOf` (in slot order), their values zero, and where to write them
   * packed, `dim` bytes a row (a snapshot's dense section is read straight into it, no copy in
   * between); `unpack` then moves each row to its stride. Room is made for exactly these rows.
   */
  static receiving(
    dim: number,
    rowOf: Uint32Array<ArrayBuffer>,
    simd = SIMD_AVAILABLE,
  ): { rows: DenseRows; target: Int8Array } {
    const rows = new DenseRows(dim, simd);
    rows.#rowOf = rowOf;
    rows.#count = rowOf.length;
    rows.#reserve(rowOf.length, true);
    const at = rows.offset(0);
    return { rows, target: (rows.#bytes as Int8Array).subarray(at, at + rowOf.length * dim) };
  }

  /**
   * The rows one after another, `dim` bytes each (what a snapshot stores): a view of where they are
   * when rows have no padding (dim a multiple of 16; valid until the next `push`), else a copy.
   */
  packed(): Int8Array {
    const { dim, stride } = this, at = this.#base, n = this.#count;
    if (dim === stride) return (this.#bytes as Int8Array).subarray(at, at + n * dim);
    const out = new Int8Array(n * dim);
    for (let slot = 0; slot < n; slot++) {
      out.set(this.#bytes.subarray(at + slot * stride, at + slot * stride + dim), slot * dim);
    }
    return out;
  }

  /** After `receiving`'s target is filled: each row from `dim` bytes apart to `stride` apart. */
  unpack() {
    const { dim, stride } = this;
    if (dim === stride) return;
    const bytes = this.#bytes, base = this.#base;
    // Last row first: a row moves to an offset at or past its own, over rows already moved.
    for (let slot = this.#count - 1; slot >= 0; slot--) {
      bytes.copyWithin(base + slot * stride, base + slot * dim, base + slot * dim + dim);
      bytes.fill(0, base + slot * stride + dim, base + (slot + 1) * stride);
    }
  }

  /**
   * Room for `rows` rows: a bigger array, the move into a memory, or the memory grown. `exact`: no
   * room to spare (rows loaded at start; a later push grows it).
   */
  #reserve(rows: number, exact = false) {
    const needed = this.#base + rows * this.stride;
    if (needed <= this.#bytes.length) return;
    const spare = exact ? 0 : 1.5;
    if (this.#memory) {
      const pages = Math.ceil(Math.max(needed, this.#bytes.length * spare) / PAGE) -
        this.#memory.buffer.byteLength / PAGE;
      this.#memory.grow(pages);
      this.#bytes = new Int8Array(this.#memory.buffer);
      return;
    }
    const header = 2 * this.stride + 4 * CHUNK;
    if (this.simd && KERNEL && header + rows * this.stride > PAGE) {
      const size = Math.max(header + rows * this.stride, header + this.#bytes.length * spare);
      const memory = new WebAssembly.Memory({ initial: Math.ceil(size / PAGE) });
      const instance = new WebAssembly.Instance(KERNEL, { env: { memory } });
      const bytes = new Int8Array(memory.buffer);
      bytes.set(this.#bytes.subarray(0, this.#count * this.stride), header);
      this.#memory = memory;
      this.#dots = instance.exports.dots as Dots;
      this.#dots4 = instance.exports.dots4 as Dots;
      this.#base = header;
      this.#bytes = bytes;
      return;
    }
    const next = new Int8Array(Math.max(needed, Math.ceil(this.#bytes.length * spare)));
    next.set(this.#bytes);
    this.#bytes = next;
  }

  /**
   * The int32 dot products of `query` (int16 from `quantise`, `dim` long or more) with the rows of
   * slots [from, from + n), n ≤ CHUNK. The result is a view that the next call overwrites.
   */
  dots(query: Int16Array, from: number, n: number): Int32Array {
    if (n > CHUNK || from < 0 || from + n > this.#count) throw new RangeError("dots: slots out of range");
    const stride = this.stride;
    if (this.#memory) {
      const buffer = this.#memory.buffer;
      new Int16Array(buffer, 0, stride).set(query.subarray(0, this.dim));
      this.#dots!(0, this.#base + from * stride, n, stride, 2 * stride);
      return new Int32Array(buffer, 2 * stride, n);
    }
    if (this.#sums.length < CHUNK) this.#sums = new Int32Array(CHUNK);
    this.#query.set(query.subarray(0, this.dim));
    return jsDots(this.#query, this.#bytes, from * stride, n, stride, this.#sums);
  }

  /**
   * `dots` for `nq` queries at once (`nq` a multiple of QUERY_BLOCK; query j's int16 components at
   * j * stride in `queries`, as `quantise` leaves them): query j's sum with slot from + i at j * n + i
   * of the result, a view that the next call overwrites. The same sums as one `dots` per query; in a
   * memory the kernel reads each row once per QUERY_BLOCK queries. The queries and sums go past the
   * rows (the memory grows by what they take, at most once).
   */
  dotsMany(queries: Int16Array, nq: number, from: number, n: number): Int32Array {
    if (n > CHUNK || from < 0 || from + n > this.#count) throw new RangeError("dotsMany: slots out of range");
    const stride = this.stride;
    if (nq % QUERY_BLOCK !== 0 || queries.length < nq * stride) {
      throw new RangeError(`dotsMany: ${nq} queries of ${stride} (a multiple of ${QUERY_BLOCK})`);
    }
    if (!this.#memory) {
      if (this.#many.length < nq * n) this.#many = new Int32Array(nq * n);
      for (let j = 0; j < nq; j++) {
        this.#many.set(this.dots(queries.subarray(j * stride, (j + 1) * stride), from, n), j * n);
      }
      return this.#many.subarray(0, nq * n);
    }
    const scratch = this.#base + this.#count * stride;
    const out = scratch + 2 * stride * nq;
    const needed = out + 4 * nq * n;
    if (needed > this.#memory.buffer.byteLength) {
      // With room to spare: new rows take the scratch's place, and a page at a time would grow it per batch.
      const size = this.#memory.buffer.byteLength;
      this.#memory.grow(Math.ceil((Math.max(needed, size * 1.125) - size) / PAGE));
      this.#bytes = new Int8Array(this.#memory.buffer);
    }
    const buffer = this.#memory.buffer;
    new Int16Array(buffer, scratch, nq * stride).set(queries.subarray(0, nq * stride));
    const rows = this.#base + from * stride;
    for (let j = 0; j < nq; j += QUERY_BLOCK) {
      this.#dots4!(scratch + 2 * stride * j, rows, n, stride, out + 4 * n * j);
    }
    return new Int32Array(buffer, out, nq * n);
  }
}

/** The largest |component| of a quantised query: 32,767, less past 512 dimensions (|sum| < 2^31). */
export function queryLimit(stride: number): number {
  return Math.min(32_767, Math.floor(0x7fffffff / (128 * stride)));
}

/** The kernel's sums in JavaScript: the fallback, and the reference its test compares with. */
export function jsDots(
  query: Int16Array,
  rows: Int8Array<ArrayBufferLike>,
  at: number,
  n: number,
  stride: number,
  out: Int32Array,
): Int32Array {
  for (let i = 0; i < n; i++, at += stride) {
    let sum = 0;
    for (let k = 0; k < stride; k++) sum += query[k]! * rows[at + k]!;
    out[i] = sum;
  }
  return out.subarray(0, n);
}

/**
 * `query` as int16 (into `out`, `stride` long, padded with zeros) and its scale: query[k] ≈ out[k] *
 * scale, each component off by at most scale / 2. The largest component is `queryLimit(stride)`, so
 * no sum over int8 rows overflows int32.
 */
export function quantise(query: Float32Array, out: Int16Array): number {
  let max = 0;
  for (let k = 0; k < query.length; k++) max = Math.max(max, Math.abs(query[k]!));
  const scale = max > 0 ? max / queryLimit(out.length) : 1;
  out.fill(0);
  for (let k = 0; k < query.length; k++) out[k] = Math.round(query[k]! / scale);
  return scale;
}
