/**
 * One partition's vectors in a few flat typed arrays instead of one JavaScript object per vector:
 * each vector is quantised to int8 with its own scale (max |x| / 127), and vectors that are mostly
 * zeros (the built-in embedder's use about 30–200 of 512 dimensions) keep only their non-zero
 * components, filed by dimension (below). About 0.4 KB per built-in vector and 1 byte a dimension for
 * dense ones, against 0.9–2 KB as float objects; a scan is a few tight loops over typed arrays, and
 * for dense rows one WebAssembly SIMD kernel (simd/int8_dots.ts) over an int16 copy of the query.
 *
 * Scores are approximate (the quantisation error of a cosine is about 0.002): callers that need the
 * exact cosine rescore their few best candidates against the stored float vectors.
 */

import { idCount, IdRows, type PackedIds } from "./id_rows.ts";
import { CHUNK, DenseRows, quantise, QUERY_BLOCK } from "./simd/int8_dots.ts";

/** `indexStart` (in `PackedArrays`) and `#start` of a row stored densely / sparsely. */
const DENSE = 0xffffffff;
const SPARSE = 0xffffffff;
/** Rows per block of postings (row offsets in a block fit 16 bits). */
const BLOCK = 0x10000;
/** Queries per pass of `scanMany` over the dense rows (their int16 copies and sums: ~160 KB at 384). */
const QUERY_GROUP = 32;

export interface Neighbor {
  id: string;
  score: number;
  /**
   * For an approximate score (`scan`): how far the exact cosine can be from it at most. Rounding to
   * int8 moves each stored component by at most half its row's scale, so the score moves by at most
   * that times the sum of |query| over the row's stored dimensions.
   */
  error?: number;
}

/**
 * The arrays of a packed partition, row by row, as a snapshot stores them (rows without holes): a
 * sparse row's components are its `count` values from `start` with their dimensions from
 * `indexStart`, a dense row's (`indexStart` DENSE) its `dim` values from `start`.
 */
export interface PackedArrays {
  ids: string[];
  scale: Float32Array<ArrayBuffer>;
  start: Uint32Array<ArrayBuffer>;
  indexStart: Uint32Array<ArrayBuffer>;
  count: Uint32Array<ArrayBuffer>;
  values: Int8Array<ArrayBuffer>;
  indices: Uint16Array<ArrayBuffer>;
}

/**
 * A packed partition as it is held (rows without holes): per row its scale, its dense values' offset
 * in `values` or SPARSE, and its component count; `used[list]` postings of each list (block * dim +
 * dimension), concatenated in list order in `postRows` (row offsets in the block) and `postValues`.
 * What a snapshot stores, so a start loads it without rebuilding anything.
 */
export interface PackedLayout {
  /** As strings (a version 2 snapshot's) or as bytes (`layout()`, a version 3 snapshot's). */
  ids: string[] | PackedIds;
  scale: Float32Array<ArrayBuffer>;
  start: Uint32Array<ArrayBuffer>;
  count: Uint32Array<ArrayBuffer>;
  values: Int8Array<ArrayBuffer>;
  used: Uint32Array<ArrayBuffer>;
  postRows: Uint16Array<ArrayBuffer>;
  postValues: Int8Array<ArrayBuffer>;
}

/**
 * Sparse rows are kept dimension by dimension (for each dimension, the rows that use it, in row
 * order, and their int8 values), dense rows row by row. A query touches only the dimensions it uses:
 * a built-in query uses about 50 of 512, so a scan reads about a tenth of the components a row-major
 * scan read (24 ms at 100,000 built-in vectors), and the write path's neighbour scan about a quarter.
 * The sums are the same: each row's components are added in dimension order either way.
 */
export class PackedVectors {
  #scale = new Float32Array(16);
  /** A dense row's slot in #dense (its values at #dense.offset(slot)), or SPARSE. */
  #start = new Uint32Array(16);
  /** Stored components of the row (`dim` for a dense one). */
  #count = new Uint32Array(16);
  #dense: DenseRows;
  #rows = 0;
  /**
   * Postings: per block of 65,536 rows and dimension (list `block * dim + d`), the block's sparse rows
   * using the dimension (ascending, as offsets in the block: 2 bytes, not 4) and their values; the
   * first #used[list] of each are filled.
   */
  #postRows: Uint16Array<ArrayBuffer>[] = [];
  #postValues: Int8Array<ArrayBuffer>[] = [];
  #used = new Uint32Array(0);
  #sparseRows = 0;
  /** Scratch sums of a scan, reused. */
  #sums = new Float64Array(0);
  /** Scratch int16 query of a scan. */
  #query: Int16Array;

  /** The rows' ids: a vector index shares one table among its partitions (id_rows.ts). */
  readonly #rowOf: IdRows;

  constructor(readonly dim: number, rowOf: IdRows = IdRows.own()) {
    this.#rowOf = rowOf;
    this.#dense = new DenseRows(dim);
    this.#query = new Int16Array(this.#dense.stride);
  }

  /** Posting lists for rows up to `rows`. */
  #growBlocks(rows: number) {
    const lists = Math.ceil(rows / BLOCK) * this.dim;
    if (this.#postRows.length >= lists) return;
    this.#used = grow(this.#used, lists);
    while (this.#postRows.length < lists) {
      this.#postRows.push(new Uint16Array(0));
      this.#postValues.push(new Int8Array(0));
    }
  }

  get size(): number {
    return this.#rowOf.size;
  }

  has(id: string): boolean {
    return this.#rowOf.has(id);
  }

  *ids(): IterableIterator<string> {
    const rows = this.#rows;
    for (let row = 0; row < rows; row++) {
      const id = this.#rowOf.idAt(row);
      if (id !== undefined) yield id;
    }
  }

  /** Adds or replaces a vector (a replaced row is left dead until the next compaction). */
  put(id: string, vector: Float32Array) {
    if (vector.length !== this.dim) {
      throw new RangeError(`vector of ${vector.length} dimensions in a partition of ${this.dim}`);
    }
    this.delete(id);
    let nonZero = 0;
    let max = 0;
    for (let i = 0; i < vector.length; i++) {
      const x = vector[i]!;
      if (x !== 0) nonZero++;
      const a = Math.abs(x);
      if (a > max) max = a;
    }
    const row = this.#rows++;
    this.#growRows(this.#rows);
    const scale = max > 0 ? max / 127 : 1;
    this.#scale[row] = scale;
    // (Dimensions of a snapshot's sparse rows are uint16.)
    const sparse = nonZero * 2 <= this.dim && this.dim <= 0x10000;
    if (sparse) {
      this.#start[row] = SPARSE;
      this.#count[row] = nonZero;
      this.#sparseRows++;
      this.#growBlocks(row + 1);
      const base = (row >>> 16) * this.dim;
      for (let d = 0; d < vector.length; d++) {
        if (vector[d] === 0) continue;
        const list = base + d;
        const at = this.#used[list]!;
        if (at === this.#postRows[list]!.length) {
          this.#postRows[list] = grow(this.#postRows[list]!, at + 1);
          this.#postValues[list] = grow(this.#postValues[list]!, at + 1);
        }
        this.#postRows[list]![at] = row & 0xffff;
        this.#postValues[list]![at] = Math.round(vector[d]! / scale);
        this.#used[list] = at + 1;
      }
    } else {
      const slot = this.#dense.push(row);
      const at = this.#dense.offset(slot), values = this.#dense.values();
      this.#start[row] = slot;
      this.#count[row] = this.dim;
      for (let i = 0; i < vector.length; i++) values[at + i] = Math.round(vector[i]! / scale);
    }
    this.#rowOf.set(id, row);
  }

  delete(id: string) {
    const row = this.#rowOf.get(id);
    if (row === undefined) return;
    this.#rowOf.delete(id);
    // Dead rows cost scan time and memory: rewrite once they are a quarter of the rows.
    if (this.#rows - this.#rowOf.size > Math.max(1_000, this.#rows / 4)) this.#restore(this.arrays());
  }

  /** The stored (dequantised) vector. */
  vectorOf(id: string): Float32Array | undefined {
    const row = this.#rowOf.get(id);
    if (row === undefined) return undefined;
    const out = new Float32Array(this.dim);
    const scale = this.#scale[row]!;
    const slot = this.#start[row]!;
    if (slot !== SPARSE) {
      const values = this.#dense.values(), start = this.#dense.offset(slot);
      for (let j = 0; j < this.dim; j++) out[j] = values[start + j]! * scale;
      return out;
    }
    for (let d = 0; d < this.dim; d++) {
      const at = this.#find(d, row);
      if (at >= 0) out[d] = this.#postValues[(row >>> 16) * this.dim + d]![at]! * scale;
    }
    return out;
  }

  /** Where `row` is in dimension `d`'s postings of its block, or -1 (binary search: in row order). */
  #find(d: number, row: number): number {
    const list = (row >>> 16) * this.dim + d, offset = row & 0xffff;
    const rows = this.#postRows[list]!, n = this.#used[list]!;
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < n && rows[lo] === offset ? lo : -1;
  }

  /** Approximate cosines of the stored vectors with a normalised query, into `top`. */
  scan(query: Float32Array, top: TopK, exclude?: string) {
    if (query.length !== this.dim) {
      throw new RangeError(`cosine: vectors of ${query.length} and ${this.dim} dimensions`);
    }
    const rows = this.#rows, rowOf = this.#rowOf;
    const starts = this.#start, scales = this.#scale;
    // Rows are compared by their ids' numbers; a string is made only for a row the top takes.
    const skip = exclude === undefined ? -1 : rowOf.tier.numberOf(exclude) ?? -1;
    let floor = top.floor;
    let offered = false;
    // Sparse rows: the query's dimensions' postings summed into per-row sums.
    if (this.#sparseRows > 0) {
      if (this.#sums.length < rows) this.#sums = new Float64Array(Math.ceil(rows * 1.25));
      else this.#sums.fill(0, 0, rows);
      for (let list = 0; list < this.#postRows.length; list++) {
        const q = query[list % this.dim]!;
        if (q === 0) continue;
        const base = Math.floor(list / this.dim) * BLOCK;
        accumulate(this.#postRows[list]!, this.#postValues[list]!, this.#used[list]!, q, this.#sums, base);
      }
      const sums = this.#sums;
      for (let row = 0; row < rows; row++) {
        if (starts[row] !== SPARSE) continue;
        const score = sums[row]! * scales[row]!;
        if (!(score > floor)) continue;
        const n = rowOf.numberAt(row);
        if (n < 0 || n === skip) continue;
        // Its error bound only once it is still in the top at the end (below): most are not.
        top.offer(rowOf.tier.idAt(n), score, NaN), offered = true;
        floor = top.floor;
      }
    }
    // Dense rows: the query as int16 once, the kernel's int32 sums times both scales.
    const dense = this.#dense;
    const queryScale = dense.count > 0 ? quantise(query, this.#query) : 0;
    for (let from = 0; from < dense.count; from += CHUNK) {
      const n = Math.min(CHUNK, dense.count - from);
      const sums = dense.dots(this.#query, from, n);
      for (let i = 0; i < n; i++) {
        const row = dense.rowAt(from + i);
        const score = sums[i]! * queryScale * scales[row]!;
        if (!(score > floor)) continue;
        const n = rowOf.numberAt(row);
        if (n < 0 || n === skip) continue;
        top.offer(rowOf.tier.idAt(n), score, NaN), offered = true;
        floor = top.floor;
      }
    }
    if (offered) this.#bound(query, top, queryScale);
  }

  /**
   * `scan` for many queries, each into its own top (`tops[j]`, `excludes[j]`): the same candidates,
   * scores and error bounds as one `scan` per query. Dense rows in a WebAssembly memory are read a
   * chunk at a time for up to QUERY_GROUP queries (the kernel's `dots4`: each row once per four
   * queries), instead of the whole partition once per query; other partitions scan query by query.
   */
  scanMany(queries: Float32Array[], tops: TopK[], excludes: (string | undefined)[]) {
    const dense = this.#dense;
    if (this.#sparseRows > 0 || !dense.inMemory) {
      queries.forEach((query, j) => this.scan(query, tops[j]!, excludes[j]));
      return;
    }
    const stride = dense.stride, rowOf = this.#rowOf, scales = this.#scale;
    const skips = excludes.map((id) => id === undefined ? -1 : rowOf.tier.numberOf(id) ?? -1);
    const rowScale = new Float64Array(CHUNK);
    for (let first = 0; first < queries.length; first += QUERY_GROUP) {
      const group = queries.slice(first, first + QUERY_GROUP);
      for (const query of group) {
        if (query.length !== this.dim) {
          throw new RangeError(`cosine: vectors of ${query.length} and ${this.dim} dimensions`);
        }
      }
      const nq = Math.ceil(group.length / QUERY_BLOCK) * QUERY_BLOCK;
      const quantised = new Int16Array(nq * stride);
      const queryScales = group.map((query, j) =>
        quantise(query, quantised.subarray(j * stride, (j + 1) * stride))
      );
      const floors = group.map((_, j) => tops[first + j]!.floor);
      const offered = group.map(() => false);
      for (let from = 0; from < dense.count; from += CHUNK) {
        const n = Math.min(CHUNK, dense.count - from);
        for (let i = 0; i < n; i++) rowScale[i] = scales[dense.rowAt(from + i)]!;
        const sums = dense.dotsMany(quantised, nq, from, n);
        for (let j = 0; j < group.length; j++) {
          const top = tops[first + j]!, skip = skips[first + j]!, queryScale = queryScales[j]!;
          let floor = floors[j]!;
          for (let i = 0, at = j * n; i < n; i++, at++) {
            // As in `scan`: the same products in the same order, so the same scores.
            const score = sums[at]! * queryScale * rowScale[i]!;
            if (!(score > floor)) continue;
            const n = rowOf.numberAt(dense.rowAt(from + i));
            if (n < 0 || n === skip) continue;
            top.offer(rowOf.tier.idAt(n), score, NaN), offered[j] = true;
            floor = top.floor;
          }
          floors[j] = floor;
        }
      }
      group.forEach((query, j) => {
        if (offered[j]) this.#bound(query, tops[first + j]!, queryScales[j]!);
      });
    }
  }

  /** The error bounds of the items `scan` just offered to `top` (their `error` NaN until then). */
  #bound(query: Float32Array, top: TopK, queryScale: number) {
    const starts = this.#start, scales = this.#scale, dense = this.#dense;
    for (const item of top.items) {
      if (!Number.isNaN(item.error)) continue;
      const row = this.#rowOf.get(item.id)!;
      const slot = starts[row]!, scale = scales[row]!;
      let reach = 0;
      if (slot !== SPARSE) {
        // Rounding the row moves each component by at most scale / 2 (times |query| summed), rounding
        // the query each of its components by at most queryScale / 2 (times the row's |values|).
        const values = dense.values(), start = dense.offset(slot);
        let rowSum = 0;
        for (let d = 0; d < query.length; d++) {
          reach += Math.abs(query[d]!);
          rowSum += Math.abs(values[start + d]!);
        }
        item.error = (reach + queryScale * rowSum) * scale / 2;
        continue;
      }
      for (let d = 0; d < query.length; d++) {
        if (query[d] !== 0 && this.#find(d, row) >= 0) reach += Math.abs(query[d]!);
      }
      item.error = reach * scale / 2;
    }
  }

  /** The live rows, packed without holes, row by row. */
  arrays(): PackedArrays {
    const live: number[] = [];
    for (let row = 0; row < this.#rows; row++) if (this.#rowOf.numberAt(row) >= 0) live.push(row);
    const newRow = new Int32Array(this.#rows).fill(-1);
    live.forEach((row, i) => (newRow[row] = i));
    let values = 0;
    let indices = 0;
    for (const row of live) {
      values += this.#count[row]!;
      if (this.#start[row] === SPARSE) indices += this.#count[row]!;
    }
    const out: PackedArrays = {
      ids: [],
      scale: new Float32Array(live.length),
      start: new Uint32Array(live.length),
      indexStart: new Uint32Array(live.length),
      count: new Uint32Array(live.length),
      values: new Int8Array(values),
      indices: new Uint16Array(indices),
    };
    let v = 0;
    let x = 0;
    live.forEach((row, i) => {
      const n = this.#count[row]!;
      out.ids.push(this.#rowOf.idAt(row)!);
      out.scale[i] = this.#scale[row]!;
      out.count[i] = n;
      const start = this.#start[row]!;
      if (start === SPARSE) {
        // Its values and dimensions are filled from the postings below; `start` and `indexStart`
        // coincide (a sparse row's values and dimensions are laid out in step).
        out.start[i] = v;
        out.indexStart[i] = x;
        v += n;
        x += n;
      } else {
        out.start[i] = v;
        out.indexStart[i] = DENSE;
        const at = this.#dense.offset(start);
        out.values.set(this.#dense.values().subarray(at, at + n), v);
        v += n;
      }
    });
    // Dimension by dimension, so each row's components come out in dimension order.
    const filled = new Uint32Array(live.length);
    for (let list = 0; list < this.#postRows.length; list++) {
      const d = list % this.dim, base = Math.floor(list / this.dim) * BLOCK;
      const postRows = this.#postRows[list]!, postValues = this.#postValues[list]!, n = this.#used[list]!;
      for (let j = 0; j < n; j++) {
        const i = newRow[base + postRows[j]!]!;
        if (i < 0) continue;
        const k = filled[i]!++;
        out.values[out.start[i]! + k] = postValues[j]!;
        out.indices[out.indexStart[i]! + k] = d;
      }
    }
    return out;
  }

  /**
   * The partition as held, for a snapshot (dead rows are compacted away first). Dense values may be
   * a view of the rows: valid until the next change, so write it before anything else runs.
   */
  layout(): PackedLayout {
    if (this.#rows !== this.#rowOf.size) this.#restore(this.arrays());
    const rows = this.#rows, lists = this.#postRows.length;
    let total = 0;
    for (let list = 0; list < lists; list++) total += this.#used[list]!;
    const postRows = new Uint16Array(total), postValues = new Int8Array(total);
    let at = 0;
    for (let list = 0; list < lists; list++) {
      const n = this.#used[list]!;
      postRows.set(this.#postRows[list]!.subarray(0, n), at);
      postValues.set(this.#postValues[list]!.subarray(0, n), at);
      at += n;
    }
    // Dense rows without their padding, in slot order (what version 2 snapshots hold): with no
    // padding a view of the rows where they are, not a copy (38 MB at 100,000 rows of 384).
    const start = this.#start.slice(0, rows), dense = this.#dense, dim = this.dim;
    const values = dense.packed() as Int8Array<ArrayBuffer>;
    for (let slot = 0; slot < dense.count; slot++) start[dense.rowAt(slot)] = slot * dim;
    return {
      ids: this.#rowOf.packed(rows),
      scale: this.#scale.slice(0, rows),
      start,
      count: this.#count.slice(0, rows),
      values,
      used: this.#used.slice(0, lists),
      postRows,
      postValues,
    };
  }

  /**
   * Where a layout's dense `values` (`length` bytes, given its `start`) can be read to so that they
   * are already where the kernel reads them: `rows` goes to `fromLayout` with the values read into
   * `target`. Undefined when the rows are not stored in row order (then `values` are copied).
   */
  static denseFor(
    dim: number,
    start: Uint32Array,
    length: number,
  ): { rows: DenseRows; target: Int8Array } | undefined {
    const dense: number[] = [];
    for (let row = 0; row < start.length; row++) {
      if (start[row] === SPARSE) continue;
      if (start[row] !== dense.length * dim) return undefined;
      dense.push(row);
    }
    if (dense.length * dim !== length) return undefined;
    return DenseRows.receiving(dim, Uint32Array.from(dense));
  }

  /**
   * A partition from its layout; the postings are views of the layout's arrays (no copy), dense rows
   * are copied to where the kernel reads them, unless they were read there (`dense`, from `denseFor`).
   */
  static fromLayout(dim: number, layout: PackedLayout, dense?: DenseRows, rowOf?: IdRows): PackedVectors {
    const rows = idCount(layout.ids);
    // A partition that never held a sparse row has no posting lists at all (dense embedders').
    const lists = layout.used.length === 0 ? 0 : Math.ceil(rows / BLOCK) * dim;
    if (
      layout.scale.length !== rows || layout.start.length !== rows || layout.count.length !== rows ||
      layout.used.length !== lists || layout.postRows.length !== layout.postValues.length
    ) throw new Error("packed layout: array lengths do not match");
    const packed = new PackedVectors(dim, rowOf);
    packed.#rowOf.load(layout.ids);
    packed.#rows = rows;
    packed.#scale = layout.scale;
    packed.#start = layout.start.slice();
    packed.#count = layout.count;
    if (dense) {
      dense.unpack();
      packed.#dense = dense;
    }
    let received = 0;
    for (let row = 0; row < rows; row++) {
      const start = layout.start[row]!;
      if (start === SPARSE) continue;
      if (dense) {
        if (dense.rowAt(received) !== row) throw new Error("packed layout: dense rows do not match");
        packed.#start[row] = received++;
        continue;
      }
      const slot = packed.#dense.push(row);
      if (start + dim > layout.values.length) throw new Error("packed layout: dense values out of range");
      packed.#dense.values().set(layout.values.subarray(start, start + dim), packed.#dense.offset(slot));
      packed.#start[row] = slot;
    }
    if (dense && received !== dense.count) throw new Error("packed layout: dense rows do not match");
    packed.#used = layout.used;
    let at = 0;
    for (let list = 0; list < lists; list++) {
      const n = layout.used[list]!;
      packed.#postRows.push(layout.postRows.subarray(at, at + n));
      packed.#postValues.push(layout.postValues.subarray(at, at + n));
      at += n;
    }
    if (at !== layout.postRows.length) throw new Error("packed layout: postings do not match their counts");
    for (let row = 0; row < rows; row++) if (layout.start[row] === SPARSE) packed.#sparseRows++;
    return packed;
  }

  static from(dim: number, arrays: PackedArrays, rowOf?: IdRows): PackedVectors {
    const packed = new PackedVectors(dim, rowOf);
    packed.#restore(arrays);
    return packed;
  }

  #restore(a: PackedArrays) {
    const rows = a.ids.length;
    for (const id of [...this.ids()]) this.#rowOf.delete(id);
    this.#rowOf.load(a.ids);
    this.#rows = rows;
    this.#scale = a.scale;
    this.#count = a.count;
    this.#start = new Uint32Array(Math.max(rows, 16));
    // Dense rows keep their values row by row; sparse rows' go to the postings.
    const perList = new Uint32Array(Math.ceil(rows / BLOCK) * this.dim);
    this.#sparseRows = 0;
    for (let row = 0; row < rows; row++) {
      if (a.indexStart[row] === DENSE) continue;
      this.#sparseRows++;
      const from = a.indexStart[row]!, n = a.count[row]!;
      const base = (row >>> 16) * this.dim;
      for (let j = 0; j < n; j++) perList[base + a.indices[from + j]!]!++;
    }
    this.#dense = new DenseRows(this.dim);
    this.#postRows = Array.from(perList, (n) => new Uint16Array(n));
    this.#postValues = Array.from(perList, (n) => new Int8Array(n));
    this.#used = new Uint32Array(perList.length);
    for (let row = 0; row < rows; row++) {
      const start = a.start[row]!, n = a.count[row]!;
      if (a.indexStart[row] === DENSE) {
        const slot = this.#dense.push(row);
        this.#dense.values().set(a.values.subarray(start, start + n), this.#dense.offset(slot));
        this.#start[row] = slot;
        continue;
      }
      this.#start[row] = SPARSE;
      const from = a.indexStart[row]!;
      const base = (row >>> 16) * this.dim;
      for (let j = 0; j < n; j++) {
        const list = base + a.indices[from + j]!;
        const at = this.#used[list]!++;
        this.#postRows[list]![at] = row & 0xffff;
        this.#postValues[list]![at] = a.values[start + j]!;
      }
    }
    this.#sums = new Float64Array(0);
  }

  #growRows(rows: number) {
    this.#scale = grow(this.#scale, rows);
    this.#start = grow(this.#start, rows);
    this.#count = grow(this.#count, rows);
  }
}

/** Adds `q` times each of a dimension's stored values to its rows' sums (the scan's hot loop). */
function accumulate(
  rows: Uint16Array,
  values: Int8Array,
  n: number,
  q: number,
  sums: Float64Array,
  base: number,
) {
  for (let j = 0; j < n; j++) sums[base + rows[j]!]! += q * values[j]!;
}

type Typed = Float32Array | Uint32Array | Int8Array | Uint16Array;

/** The array itself when it holds `needed` elements, else a copy with room to spare. */
function grow<T extends Typed>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(
    Math.max(needed, Math.ceil(array.length * 1.5)),
  );
  next.set(array as never);
  return next;
}

/** The k best (id, score) pairs offered, kept sorted best first. */
export class TopK {
  readonly items: Neighbor[] = [];
  constructor(readonly k: number) {}

  /** The score an item must beat to be kept. */
  get floor(): number {
    if (this.k <= 0) return Infinity;
    return this.items.length < this.k ? -Infinity : this.items[this.k - 1]!.score;
  }

  /** Whether `offer` would keep an item with this score. */
  admits(score: number): boolean {
    return this.k > 0 && (this.items.length < this.k || score > this.items[this.k - 1]!.score);
  }

  offer(id: string, score: number, error?: number) {
    const { items, k } = this;
    if (k <= 0) return;
    if (items.length === k && score <= items[k - 1]!.score) return;
    if (items.length === k) items.pop();
    let i = items.length;
    const item = error === undefined ? { id, score } : { id, score, error };
    items.push(item);
    for (; i > 0 && items[i - 1]!.score < score; i--) items[i] = items[i - 1]!;
    items[i] = item;
  }
}

/**
 * The approximate candidates (`scan`, best first, each with its `error`) that can still be among the
 * exact top `n`: one whose highest possible cosine is below the n-th best lowest possible one cannot.
 * Rescoring only these reads fewer stored vectors and ranks the same as rescoring them all.
 */
export function withinReach(candidates: readonly Neighbor[], n: number): Neighbor[] {
  if (candidates.length <= n) return [...candidates];
  const floor = candidates.map((c) => c.score - (c.error ?? 0)).sort((a, b) => b - a)[n - 1]!;
  return candidates.filter((c) => c.score + (c.error ?? 0) >= floor);
}
