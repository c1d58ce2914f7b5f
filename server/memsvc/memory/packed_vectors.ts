/**
 * One partition's vectors in a few flat typed arrays instead of one JavaScript object per vector:
 * each vector is quantised to int8 with its own scale (max |x| / 127), and vectors that are mostly
 * zeros (the built-in embedder's use about 30–200 of 512 dimensions) keep only their non-zero
 * components, as (uint16 dimension, int8 value) pairs. About 0.3 KB per built-in vector and 1 byte a
 * dimension for dense ones, against 0.9–2 KB as float objects; a scan is a tight loop over two arrays.
 *
 * Scores are approximate (the quantisation error of a cosine is about 0.002): callers that need the
 * exact cosine rescore their few best candidates against the stored float vectors.
 */

/** `indexStart` of a row stored densely (all `dim` values, no dimension indices). */
const DENSE = 0xffffffff;

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

/** The arrays of a packed partition, as a snapshot stores them (rows without holes). */
export interface PackedArrays {
  ids: string[];
  scale: Float32Array<ArrayBuffer>;
  start: Uint32Array<ArrayBuffer>;
  indexStart: Uint32Array<ArrayBuffer>;
  count: Uint32Array<ArrayBuffer>;
  values: Int8Array<ArrayBuffer>;
  indices: Uint16Array<ArrayBuffer>;
}

export class PackedVectors {
  #ids: (string | undefined)[] = [];
  readonly #rowOf = new Map<string, number>();
  #scale = new Float32Array(16);
  #start = new Uint32Array(16);
  #indexStart = new Uint32Array(16);
  #count = new Uint32Array(16);
  #values = new Int8Array(1024);
  #indices = new Uint16Array(1024);
  #rows = 0;
  #valuesUsed = 0;
  #indicesUsed = 0;

  constructor(readonly dim: number) {}

  get size(): number {
    return this.#rowOf.size;
  }

  has(id: string): boolean {
    return this.#rowOf.has(id);
  }

  ids(): IterableIterator<string> {
    return this.#rowOf.keys();
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
    this.#start[row] = this.#valuesUsed;
    const sparse = nonZero * 2 <= this.dim && this.dim <= 0x10000;
    const n = sparse ? nonZero : this.dim;
    this.#count[row] = n;
    this.#values = grow(this.#values, this.#valuesUsed + n);
    if (sparse) {
      this.#indexStart[row] = this.#indicesUsed;
      this.#indices = grow(this.#indices, this.#indicesUsed + n);
      for (let i = 0; i < vector.length; i++) {
        if (vector[i] === 0) continue;
        this.#indices[this.#indicesUsed++] = i;
        this.#values[this.#valuesUsed++] = Math.round(vector[i]! / scale);
      }
    } else {
      this.#indexStart[row] = DENSE;
      for (let i = 0; i < vector.length; i++) {
        this.#values[this.#valuesUsed++] = Math.round(vector[i]! / scale);
      }
    }
    this.#ids[row] = id;
    this.#rowOf.set(id, row);
  }

  delete(id: string) {
    const row = this.#rowOf.get(id);
    if (row === undefined) return;
    this.#rowOf.delete(id);
    this.#ids[row] = undefined;
    // Dead rows cost scan time and memory: rewrite once they are a quarter of the rows.
    if (this.#rows - this.#rowOf.size > Math.max(1_000, this.#rows / 4)) this.#restore(this.arrays());
  }

  /** The stored (dequantised) vector. */
  vectorOf(id: string): Float32Array | undefined {
    const row = this.#rowOf.get(id);
    if (row === undefined) return undefined;
    const out = new Float32Array(this.dim);
    const start = this.#start[row]!;
    const n = this.#count[row]!;
    const scale = this.#scale[row]!;
    const indexStart = this.#indexStart[row]!;
    for (let j = 0; j < n; j++) {
      out[indexStart === DENSE ? j : this.#indices[indexStart + j]!] = this.#values[start + j]! * scale;
    }
    return out;
  }

  /** Approximate cosines of the stored vectors with a normalised query, into `top`. */
  scan(query: Float32Array, top: TopK, exclude?: string) {
    if (query.length !== this.dim) {
      throw new RangeError(`cosine: vectors of ${query.length} and ${this.dim} dimensions`);
    }
    const values = this.#values;
    const indices = this.#indices;
    const magnitude = new Float32Array(query.length);
    let dense = 0;
    for (let j = 0; j < query.length; j++) dense += magnitude[j] = Math.abs(query[j]!);
    for (let row = 0; row < this.#rows; row++) {
      const id = this.#ids[row];
      if (id === undefined || id === exclude) continue;
      const start = this.#start[row]!;
      const n = this.#count[row]!;
      const indexStart = this.#indexStart[row]!;
      let sum = 0;
      if (indexStart === DENSE) {
        for (let j = 0; j < n; j++) sum += query[j]! * values[start + j]!;
      } else {
        for (let j = 0; j < n; j++) sum += query[indices[indexStart + j]!]! * values[start + j]!;
      }
      const scale = this.#scale[row]!;
      if (!top.admits(sum * scale)) continue;
      // The error bound only for rows that enter the top: most rows never do.
      let reach = dense;
      if (indexStart !== DENSE) {
        reach = 0;
        for (let j = 0; j < n; j++) reach += magnitude[indices[indexStart + j]!]!;
      }
      top.offer(id, sum * scale, reach * scale / 2);
    }
  }

  /**
   * `scan` for many normalised queries in one pass over the rows (a row is read once for all of
   * them), into `tops[i]` for `queries[i]`, skipping `excludes[i]`. Each stored component is
   * multiplied only with the queries that use its dimension: with sparse vectors (the built-in
   * embedder's) that is a fraction of them. Sums in the same order as `scan`: the same scores.
   */
  scanMany(queries: Float32Array[], tops: TopK[], excludes: (string | undefined)[] = []) {
    const dim = this.dim;
    const nq = queries.length;
    if (nq === 0) return;
    // Per dimension, the (query, value) pairs of the queries with a non-zero component there.
    const offset = new Uint32Array(dim + 1);
    for (const q of queries) {
      if (q.length !== dim) throw new RangeError(`cosine: vectors of ${q.length} and ${dim} dimensions`);
      for (let j = 0; j < dim; j++) if (q[j] !== 0) offset[j + 1]!++;
    }
    for (let j = 0; j < dim; j++) offset[j + 1]! += offset[j]!;
    const fill = offset.slice(0, dim);
    const who = new Uint32Array(offset[dim]!);
    const what = new Float64Array(offset[dim]!);
    queries.forEach((q, i) => {
      for (let j = 0; j < dim; j++) {
        if (q[j] === 0) continue;
        const at = fill[j]!++;
        who[at] = i;
        what[at] = q[j]!;
      }
    });
    const sums = new Float64Array(nq);
    const values = this.#values;
    const indices = this.#indices;
    for (let row = 0; row < this.#rows; row++) {
      const id = this.#ids[row];
      if (id === undefined) continue;
      sums.fill(0);
      const start = this.#start[row]!;
      const n = this.#count[row]!;
      const indexStart = this.#indexStart[row]!;
      for (let j = 0; j < n; j++) {
        const value = values[start + j]!;
        const d = indexStart === DENSE ? j : indices[indexStart + j]!;
        const end = offset[d + 1]!;
        for (let at = offset[d]!; at < end; at++) sums[who[at]!]! += what[at]! * value;
      }
      const scale = this.#scale[row]!;
      for (let i = 0; i < nq; i++) {
        const score = sums[i]! * scale;
        if (!tops[i]!.admits(score) || id === excludes[i]) continue;
        // The error bound as `scan` gives it, only for rows that enter a top.
        const query = queries[i]!;
        let reach = 0;
        for (let j = 0; j < n; j++) {
          reach += Math.abs(query[indexStart === DENSE ? j : indices[indexStart + j]!]!);
        }
        tops[i]!.offer(id, score, reach * scale / 2);
      }
    }
  }

  /** The live rows, packed without holes. */
  arrays(): PackedArrays {
    const live = [...this.#rowOf.values()].sort((a, b) => a - b);
    let values = 0;
    let indices = 0;
    for (const row of live) {
      values += this.#count[row]!;
      if (this.#indexStart[row] !== DENSE) indices += this.#count[row]!;
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
      const start = this.#start[row]!;
      out.ids.push(this.#ids[row]!);
      out.scale[i] = this.#scale[row]!;
      out.count[i] = n;
      out.start[i] = v;
      out.values.set(this.#values.subarray(start, start + n), v);
      v += n;
      const indexStart = this.#indexStart[row]!;
      if (indexStart === DENSE) {
        out.indexStart[i] = DENSE;
      } else {
        out.indexStart[i] = x;
        out.indices.set(this.#indices.subarray(indexStart, indexStart + n), x);
        x += n;
      }
    });
    return out;
  }

  static from(dim: number, arrays: PackedArrays): PackedVectors {
    const packed = new PackedVectors(dim);
    packed.#restore(arrays);
    return packed;
  }

  #restore(a: PackedArrays) {
    this.#ids = [...a.ids];
    this.#rowOf.clear();
    a.ids.forEach((id, row) => this.#rowOf.set(id, row));
    this.#rows = a.ids.length;
    this.#scale = a.scale;
    this.#start = a.start;
    this.#indexStart = a.indexStart;
    this.#count = a.count;
    this.#values = a.values;
    this.#indices = a.indices;
    this.#valuesUsed = a.values.length;
    this.#indicesUsed = a.indices.length;
  }

  #growRows(rows: number) {
    this.#scale = grow(this.#scale, rows);
    this.#start = grow(this.#start, rows);
    this.#indexStart = grow(this.#indexStart, rows);
    this.#count = grow(this.#count, rows);
  }
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
