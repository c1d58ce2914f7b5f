/**
 * What a full-text index holds, and the per-document and per-term reads every part of it makes: the
 * field specs, the dictionary (terms, exact words for prefixes), the posting lists with their impacts,
 * and each document's id, metadata, field lengths, term list and phrase sequences, either its own
 * arrays (added since the index was made or loaded) or a loaded snapshot's (`Pool`). Impacts are kept
 * current here: recomputed when the average field lengths drift, lists compacted when half dead.
 *
 * Internal to internal/fulltext: FullTextIndex (index.ts) is the public face; ranked_search.ts,
 * boolean_match.ts and snapshot.ts read and fill these fields.
 */
import { IdTable } from "./id_table.ts";
import { Postings } from "./postings.ts";
import { decodeVarints, readVarints } from "./varint.ts";

export interface FieldSpec {
  weight: number;
  /** Kept as a term sequence, for phrase queries (any number of fields; a phrase may match in any). */
  phrases?: boolean;
  /** Whether a -word exclusion looks in this field (default true; false for expansion context). */
  excludable?: boolean;
  /**
   * Rank tier for match(): a document whose query terms reach a field of a higher tier ranks above
   * every document that reaches only lower tiers (title over tags over body); BM25F orders within a
   * tier. Default 0.
   */
  tier?: number;
  /**
   * The field's value is a list of terms taken as they are (keys such as "t:project" for filters),
   * not text to analyze. Give weight 0 to keep them out of ranking.
   */
  verbatim?: boolean;
  /**
   * This field's BM25 length normalisation, 0 to 1 (default: the index's `b`). 0 for a field whose
   * length says nothing about how much it is about a term, such as a name: with the index's `b`, a field
   * most documents leave empty has an average length near 0, and the few that have it are penalised.
   */
  b?: number;
}

/** A field's spec with its defaults filled in (`b` stays absent unless given: snapshots compare specs). */
export type Spec = Required<Omit<FieldSpec, "b">> & { b?: number };

export interface IndexOptions {
  /**
   * Also index every word unstemmed (as the term "=word"), so match() can take exact prefixes
   * ({ prefix: "runn" } finds "running" and not "runs"). About doubles the postings.
   */
  exactWords?: boolean;
  /** BM25 term-frequency saturation (default 1.2). */
  k1?: number;
  /** BM25 length normalisation, 0 (none) to 1 (full; default 0.75). */
  b?: number;
}

export const K1 = 1.2;
export const B = 0.75;
/** Per-field frequency is kept in a byte. */
export const MAX_TF = 255;

/**
 * Term ids of a document, for removal; field lengths in terms; each phrase field as term ids. Only
 * documents added since the index was made or loaded have them: a loaded snapshot's stay in its
 * arrays (`Pool`).
 */
export interface Own {
  terms: Int32Array;
  lengths: ArrayLike<number>;
  sequences: (Int32Array | undefined)[];
}

/** The per-document arrays of a loaded snapshot, for document numbers below `count`. */
export interface Pool {
  count: number;
  /**
   * Term lists (sorted, as differences) and phrase sequences as varints, `termStart` and `seqStart`
   * in bytes (the third format); else as Int32, the starts in elements (the second).
   */
  packed: boolean;
  termStart: Uint32Array;
  terms: Int32Array | Uint8Array;
  /** Where each (document, field) phrase sequence starts in `sequences`: document n's field f is slot n × fields + f (empty for fields without phrases). */
  seqStart: Uint32Array;
  sequences: Int32Array | Uint8Array;
  lengths: Uint16Array;
}

export class IndexData<M> {
  readonly fields: [string, Spec][];
  readonly exactWords: boolean;
  readonly k1: number;
  readonly b: number;
  /** Exact words ("=word" terms without the "="), sorted, and those added since the last sort. */
  vocabulary: string[] = [];
  newWords: string[] = [];
  /** Stem term id of each exact-word term id, for phrase positions given as a prefix. */
  readonly stemOfExact = new Map<number, number>();
  /** With exactWords: each word's stem and exact term ids. */
  readonly wordIds = new Map<string, [number, number]>();
  readonly termIds = new Map<string, number>();
  readonly postings: Postings[] = [];
  /**
   * By document number, undefined once removed: ids, metadata and own arrays side by side, no object
   * per document (a loaded snapshot's ids array is kept as it was parsed). `own` starts at `ownBase`,
   * the number of documents a snapshot loaded.
   */
  ids: (string | undefined)[] = [];
  metas: (M | undefined)[] = [];
  readonly own: (Own | undefined)[] = [];
  ownBase = 0;
  readonly numberOf = new IdTable((n) => this.ids[n]);
  /** Sum of live documents' lengths per field, and the averages impacts were computed with. */
  readonly lengthSums: number[];
  normAverages: number[];
  pool: Pool | undefined;

  constructor(fields: Record<string, FieldSpec>, options: IndexOptions = {}) {
    this.fields = Object.entries(fields).map(([name, f]) => [name, {
      weight: f.weight,
      phrases: f.phrases ?? false,
      excludable: f.excludable ?? true,
      tier: f.tier ?? 0,
      verbatim: f.verbatim ?? false,
      ...(f.b !== undefined ? { b: f.b } : {}),
    }]);
    this.exactWords = options.exactWords ?? false;
    this.k1 = options.k1 ?? K1;
    this.b = options.b ?? B;
    this.lengthSums = this.fields.map(() => 0);
    this.normAverages = this.fields.map(() => 0);
  }

  /** Live documents. */
  get size(): number {
    return this.numberOf.size;
  }

  /** The term's id, made when new; `word` is given for an exact-word term (for prefix lookups). */
  termId(s: string, word?: string): number {
    let t = this.termIds.get(s);
    if (t === undefined) {
      t = this.postings.length;
      this.termIds.set(s, t);
      this.postings.push(new Postings(t, this.fields.length));
      if (word !== undefined) this.newWords.push(word);
    }
    return t;
  }

  /** The document's own arrays; undefined for one a snapshot loaded (and a removed one). */
  ownOf(n: number): Own | undefined {
    return n < this.ownBase ? undefined : this.own[n - this.ownBase];
  }

  termsOf(n: number): Int32Array {
    const own = this.ownOf(n);
    if (own) return own.terms;
    const pool = this.pool!;
    const from = pool.termStart[n]!, to = pool.termStart[n + 1]!;
    return pool.packed
      ? readVarints(pool.terms as Uint8Array, from, to, true)
      : (pool.terms as Int32Array).subarray(from, to);
  }

  /** Each field's phrase sequence (undefined for fields without phrases). */
  sequencesOf(n: number): (Int32Array | undefined)[] {
    const own = this.ownOf(n);
    if (own) return own.sequences;
    const pool = this.pool!, width = this.fields.length;
    return this.fields.map(([, f], k) => {
      if (!f.phrases) return undefined;
      const from = pool.seqStart[n * width + k]!, to = pool.seqStart[n * width + k + 1]!;
      return pool.packed
        ? readVarints(pool.sequences as Uint8Array, from, to)
        : (pool.sequences as Int32Array).subarray(from, to);
    });
  }

  /** The array holding the document's field lengths, and where they start in it. */
  lengthsOf(n: number): [ArrayLike<number>, number] {
    const own = this.ownOf(n);
    return own ? [own.lengths, 0] : [this.pool!.lengths, n * this.fields.length];
  }

  /** A posting's impact: its per-field frequencies at `tfAt` of `tfs`, the document's lengths at `at`. */
  impact(tfs: ArrayLike<number>, tfAt: number, lengths: ArrayLike<number>, at: number): number {
    let pseudo = 0;
    for (let f = 0; f < this.fields.length; f++) {
      const tf = tfs[tfAt + f]!;
      if (!tf) continue;
      const avg = this.normAverages[f]! || 1;
      const spec = this.fields[f]![1], b = spec.b ?? this.b;
      pseudo += spec.weight * tf / (1 - b + b * lengths[at + f]! / avg);
    }
    return pseudo * (this.k1 + 1) / (pseudo + this.k1);
  }

  drifted(): boolean {
    const n = this.size || 1;
    return this.lengthSums.some((sum, f) => {
      const now = sum / n, then = this.normAverages[f]!;
      return then === 0 ? now > 0 : Math.abs(now - then) > then / 4;
    });
  }

  /** Recomputes every impact against today's average field lengths. */
  renormalize() {
    const n = this.size || 1;
    this.normAverages = this.lengthSums.map((sum) => sum / n);
    for (const p of this.postings) {
      p.maxImpact = 0;
      for (let i = 0; i < p.length; i++) {
        const doc = p.docs[i]!;
        if (this.ids[doc] === undefined) continue;
        const [lengths, at] = this.lengthsOf(doc);
        const impact = this.impact(p.tfs, i * p.fieldCount, lengths, at);
        p.impacts[i] = impact;
        if (impact > p.maxImpact) p.maxImpact = impact;
      }
    }
  }

  /** Drops a list's postings of removed documents (its highest impact stays an upper bound). */
  compact(p: Postings) {
    let j = 0;
    for (let i = 0; i < p.length; i++) {
      if (this.ids[p.docs[i]!] === undefined) continue;
      p.docs[j] = p.docs[i]!;
      p.impacts[j] = p.impacts[i]!;
      p.tfs.copyWithin(j * p.fieldCount, i * p.fieldCount, (i + 1) * p.fieldCount);
      j++;
    }
    p.length = j;
    p.dead = 0;
  }

  hasPhrase(n: number, phrase: number[]): boolean {
    return this.hasSequence(n, phrase.map((t) => [t]));
  }

  /** Whether a phrase field holds, at consecutive positions, one of the ids of each position. */
  hasSequence(number: number, positions: readonly (readonly number[])[]): boolean {
    if (positions.length === 0) return false;
    const own = this.ownOf(number);
    if (own) {
      return own.sequences.some((seq) => seq !== undefined && holdsSequence(seq, seq.length, positions));
    }
    const pool = this.pool!, width = this.fields.length;
    for (let k = 0; k < width; k++) {
      if (!this.fields[k]![1].phrases) continue;
      const from = pool.seqStart[number * width + k]!, to = pool.seqStart[number * width + k + 1]!;
      if (from === to) continue;
      if (!pool.packed) {
        const seq = (pool.sequences as Int32Array).subarray(from, to);
        if (holdsSequence(seq, seq.length, positions)) return true;
        continue;
      }
      // Decoded into one scratch array kept across calls: a phrase query checks every candidate's body,
      // and a fresh array each (with readVarints' counting pass) was most of a phrase search.
      if (this.#scratch.length < to - from) {
        this.#scratch = new Int32Array(Math.max(to - from, 2 * this.#scratch.length));
      }
      const length = decodeVarints(pool.sequences as Uint8Array, from, to, this.#scratch);
      if (holdsSequence(this.#scratch, length, positions)) return true;
    }
    return false;
  }

  #scratch = new Int32Array(1024);

  /** Whether the document holds the term in an excludable field. */
  holds(p: Postings, doc: number): boolean {
    const i = p.seek(doc, 0);
    if (i >= p.length || p.docs[i] !== doc) return false;
    return this.fields.some(([, f], fi) => f.excludable && p.tfs[i * p.fieldCount + fi]! > 0);
  }

  /** The live exact-word term ids starting with `prefix`. */
  prefixTerms(prefix: string): number[] {
    if (this.newWords.length > 1024) {
      this.vocabulary = this.vocabulary.concat(this.newWords).sort();
      this.newWords = [];
    }
    const out: number[] = [];
    const take = (w: string) => {
      const t = this.termIds.get(`=${w}`);
      if (t !== undefined && this.postings[t]!.df > 0) out.push(t);
    };
    const v = this.vocabulary;
    let lo = 0, hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < v.length && v[i]!.startsWith(prefix); i++) take(v[i]!);
    for (const w of this.newWords) if (w.startsWith(prefix)) take(w);
    return out;
  }
}

/** Whether `seq`'s first `length` ids hold, at consecutive positions, one of the ids of each position. */
function holdsSequence(seq: Int32Array, length: number, positions: readonly (readonly number[])[]): boolean {
  const n = positions.length;
  const first = positions[0]!;
  const single = first.length === 1 ? first[0]! : -1;
  const end = length - n;
  // A plain loop: TypedArray indexOf and Array includes per position measured several times slower.
  for (let i = 0; i <= end; i++) {
    const t = seq[i]!;
    if (single >= 0 ? t !== single : !first.includes(t)) continue;
    let j = 1;
    for (; j < n; j++) {
      const want = positions[j]!, at = seq[i + j]!;
      if (want.length === 1 ? want[0] !== at : !want.includes(at)) break;
    }
    if (j === n) return true;
  }
  return false;
}
