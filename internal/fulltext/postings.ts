/**
 * One term's posting list: the documents holding it (ascending document numbers), each posting's
 * impact (its BM25F contribution before idf) and the term's frequency in each field, in typed arrays
 * that grow by doubling. Removed documents stay until the index compacts the list.
 */
export class Postings {
  length = 0;
  /** Live documents holding the term. */
  df = 0;
  dead = 0;
  /** NaN until first asked of a list read from a snapshot (see `of`). */
  #maxImpact = 0;
  /** The arrays are views into a snapshot's buffer, not this list's own (see `push`). */
  #views = false;
  constructor(
    readonly id: number,
    readonly fieldCount: number,
    public docs: Int32Array = new Int32Array(4),
    public impacts: Float32Array = new Float32Array(4),
    /** `fieldCount` bytes per posting: the term's frequency in each field. */
    public tfs: Uint8Array = new Uint8Array(4 * fieldCount),
  ) {}
  /**
   * A list over arrays read from a snapshot (views: the first push copies them into its own). Its
   * highest impact is found when a search first needs it: reading every list's impacts at load
   * would make all of a mapped snapshot's impacts resident (frame_file.ts).
   */
  static of(id: number, fieldCount: number, docs: Int32Array, impacts: Float32Array, tfs: Uint8Array) {
    const p = new Postings(id, fieldCount);
    p.view(docs, impacts, tfs);
    p.#maxImpact = NaN;
    return p;
  }
  /**
   * Points the list at views of live postings only (a packed index's shared arrays, pack.ts): like a
   * snapshot's, copied with an eighth more room on the first push. Its highest impact stays an upper bound.
   */
  view(docs: Int32Array, impacts: Float32Array, tfs: Uint8Array) {
    this.docs = docs;
    this.impacts = impacts;
    this.tfs = tfs;
    this.length = this.df = docs.length;
    this.dead = 0;
    this.#views = true;
  }
  get maxImpact(): number {
    if (Number.isNaN(this.#maxImpact)) {
      let max = 0;
      for (let i = 0; i < this.length; i++) if (this.impacts[i]! > max) max = this.impacts[i]!;
      this.#maxImpact = max;
    }
    return this.#maxImpact;
  }
  set maxImpact(value: number) {
    this.#maxImpact = value;
  }
  /** Appends a posting; its per-field frequencies are `fieldCount` values of `tfs` from `tfAt`. */
  push(doc: number, tfs: ArrayLike<number>, tfAt: number, impact: number) {
    if (this.length === this.docs.length) {
      // A view is copied with an eighth more room, not double: a loaded index's lists are copied
      // when an edited note adds to them, and doubling every list an edit touched made an owner's
      // index of 5,000 notes ~60 MB larger after 100 edits (docs/benchmarks.md, issue 38).
      const n = this.#views ? this.length + Math.max(16, this.length >> 3) : Math.max(4, this.length * 2);
      this.#views = false;
      this.docs = grow(this.docs, new Int32Array(n));
      this.impacts = grow(this.impacts, new Float32Array(n));
      this.tfs = grow(this.tfs, new Uint8Array(n * this.fieldCount));
    }
    this.docs[this.length] = doc;
    this.impacts[this.length] = impact;
    for (let f = 0, at = this.length * this.fieldCount; f < this.fieldCount; f++) {
      this.tfs[at + f] = tfs[tfAt + f]!;
    }
    this.length++;
    this.df++;
    if (impact > this.maxImpact) this.maxImpact = impact;
  }
  /** First position at or after `from` whose document is >= doc. */
  seek(doc: number, from: number): number {
    let lo = from, hi = this.length;
    // Gallop, then binary search: probes usually land close to the cursor.
    let step = 1;
    while (lo + step < hi && this.docs[lo + step]! < doc) {
      lo += step;
      step *= 2;
    }
    hi = Math.min(hi, lo + step + 1);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export function grow<T extends Int32Array | Float32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
