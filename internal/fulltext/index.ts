/**
 * An in-process inverted index with BM25F ranking and MaxScore top-k, for services that keep their
 * documents in a database and want keyword search whose cost does not grow with the number of
 * matching documents.
 *
 * - Documents have named fields with weights (say content 1, context 0.5, tags 0.3). A term's
 *   pseudo-frequency in a document is the weighted sum over fields of tf / (1 - b + b * len / avglen)
 *   (BM25F); its impact is that saturated by k1, times idf at query time.
 * - Impacts are computed when a document is added, against the average field lengths of that moment;
 *   when the averages drift by more than a quarter, every impact is recomputed from the stored
 *   per-field frequencies (no text needed).
 * - Top-k uses MaxScore: query terms are ordered by their highest possible contribution, documents
 *   are drawn only from the lists that can still lift a document into the top k, and the others are
 *   probed by binary search only while they could. Documents are numbered in insertion order, so
 *   every posting list is sorted; an update is a removal and an add.
 * - Removal leaves a tombstone; a list is compacted once half of it is dead.
 * - `serialize` / `FullTextIndex.deserialize` save and load the whole index as one checksummed
 *   frame of typed arrays (frame.ts), so a service can persist it instead of rebuilding it.
 * - Queries: words are ranked together (OR with BM25), stop words dropped unless nothing else is
 *   left; "a phrase" must appear as such in a phrase field; -word excludes documents holding it in
 *   any field but the expansion fields (see `FieldSpec.excludable`).
 * - match() answers boolean queries instead (every clause, or any; OR groups, phrases in any phrase
 *   field, exact prefixes with `exactWords`, exclusions, non-ranking filter terms, no terms at all for
 *   a listing): ranked by field tier then BM25F, one page at an offset, and the count of matches.
 *
 * @example
 * const index = new FullTextIndex<{ owner: string }>({ content: { weight: 1, phrases: true } });
 * index.add("a", { content: "Postgres tuning notes" }, { owner: "u1" });
 * index.search("tuning", 10, (meta) => meta.owner === "u1"); // [{ id: "a", score: … }]
 */
import { QUESTION_WORDS, stem, STOP_WORDS, words } from "./analyzer.ts";
import { decodeFrame, encodeFrame, type ReadOptions } from "./frame.ts";
import { IdTable } from "./id_table.ts";
import { readVarints, VarintWriter } from "./varint.ts";

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
type Spec = Required<Omit<FieldSpec, "b">> & { b?: number };

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

/** A term of match(): an index term (a stem, "=word", a verbatim key) or the exact words with a prefix. */
export type MatchTerm = string | { prefix: string };

/**
 * What a document must hold for one alternative of a clause: at each position any of its terms;
 * with `phrase`, the positions next to each other and in order within one phrase field.
 */
export interface MatchGroup {
  words: MatchTerm[][];
  phrase?: boolean;
}

/** One condition of match(): any of its groups. `scored: false` for filters that must not rank. */
export interface MatchClause {
  anyOf: MatchGroup[];
  scored?: boolean;
}

export interface MatchQuery {
  clauses: MatchClause[];
  /** "all": every clause must match (default); "any": at least one. */
  mode?: "all" | "any";
  /** Clauses none of which may match (looking only at excludable fields). */
  exclude?: MatchClause[];
}

export interface MatchOptions<M> {
  offset?: number;
  limit: number;
  /** Matches are counted up to this; past it `totalCapped` is set (default: no cap). */
  countCap?: number;
  accept?: (meta: M, id: string) => boolean;
  /** Order among equal scores (negative: a first); the id decides last. */
  tiebreak?: (a: M, b: M) => number;
}

export interface MatchPage {
  /** Matches in all, up to `countCap`. */
  total: number;
  /** More matches than `total`. */
  totalCapped: boolean;
  /** Hits of the page, best first; a score is tier + BM25F / (1 + BM25F), 0 when nothing ranks. */
  hits: Hit[];
}

export interface Hit {
  id: string;
  score: number;
}

export interface ParsedQuery {
  /** Stems to rank by, with their count in the query. */
  terms: Map<string, number>;
  phrases: string[][];
  excluded: string[];
}

const K1 = 1.2;
/** Term lists and phrase sequences as varints; the second format's (as Int32) still load. */
const SNAPSHOT_MAGIC = "fulltext-index-3\n";
const SNAPSHOT_MAGIC_2 = "fulltext-index-2\n";
const B = 0.75;
/** Per-field frequency is kept in a byte. */
const MAX_TF = 255;

class Postings {
  length = 0;
  /** Live documents holding the term. */
  df = 0;
  dead = 0;
  /** NaN until first asked of a list read from a snapshot (see `of`). */
  #maxImpact = 0;
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
    const p = new Postings(id, fieldCount, docs, impacts, tfs);
    p.length = p.df = docs.length;
    p.#maxImpact = NaN;
    return p;
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
  push(doc: number, tf: ArrayLike<number>, impact: number) {
    if (this.length === this.docs.length) {
      const n = this.length * 2;
      this.docs = grow(this.docs, new Int32Array(n));
      this.impacts = grow(this.impacts, new Float32Array(n));
      this.tfs = grow(this.tfs, new Uint8Array(n * this.fieldCount));
    }
    this.docs[this.length] = doc;
    this.impacts[this.length] = impact;
    for (let f = 0, at = this.length * this.fieldCount; f < this.fieldCount; f++) this.tfs[at + f] = tf[f]!;
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

function grow<T extends Int32Array | Float32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * Term ids of a document, for removal; field lengths in terms; each phrase field as term ids. Only
 * documents added since the index was made or loaded have them: a loaded snapshot's stay in its
 * arrays (`Pool`).
 */
interface Own {
  terms: Int32Array;
  lengths: ArrayLike<number>;
  sequences: (Int32Array | undefined)[];
}

/** The per-document arrays of a loaded snapshot, for document numbers below `count`. */
interface Pool {
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

export class FullTextIndex<M = undefined> {
  readonly #fields: [string, Spec][];
  readonly #exactWords: boolean;
  readonly #k1: number;
  readonly #b: number;
  /** Exact words ("=word" terms without the "="), sorted, and those added since the last sort. */
  #vocabulary: string[] = [];
  #newWords: string[] = [];
  /** Stem term id of each exact-word term id, for phrase positions given as a prefix. */
  readonly #stemOfExact = new Map<number, number>();
  /** Set by a lazy #clauseAt that took a phrase as found without scanning for it. */
  #unverified = false;
  /** With exactWords: each word's stem and exact term ids. */
  readonly #wordIds = new Map<string, [number, number]>();
  readonly #termIds = new Map<string, number>();
  readonly #postings: Postings[] = [];
  /**
   * By document number, undefined once removed: ids, metadata and own arrays side by side, no object
   * per document (a loaded snapshot's ids array is kept as it was parsed). `#own` starts at `#ownBase`,
   * the number of documents a snapshot loaded.
   */
  #ids: (string | undefined)[] = [];
  #metas: (M | undefined)[] = [];
  readonly #own: (Own | undefined)[] = [];
  #ownBase = 0;
  readonly #numberOf = new IdTable((n) => this.#ids[n]);
  /** Scratch of add(): a term's slot among the document's distinct terms. */
  readonly #slotOf = new Map<number, number>();
  /** Sum of live documents' lengths per field, and the averages impacts were computed with. */
  readonly #lengthSums: number[];
  #normAverages: number[];
  #pool: Pool | undefined;

  constructor(fields: Record<string, FieldSpec>, options: IndexOptions = {}) {
    this.#fields = Object.entries(fields).map(([name, f]) => [name, {
      weight: f.weight,
      phrases: f.phrases ?? false,
      excludable: f.excludable ?? true,
      tier: f.tier ?? 0,
      verbatim: f.verbatim ?? false,
      ...(f.b !== undefined ? { b: f.b } : {}),
    }]);
    this.#exactWords = options.exactWords ?? false;
    this.#k1 = options.k1 ?? K1;
    this.#b = options.b ?? B;
    this.#lengthSums = this.#fields.map(() => 0);
    this.#normAverages = this.#fields.map(() => 0);
  }

  get size(): number {
    return this.#numberOf.size;
  }

  has(id: string): boolean {
    return this.#numberOf.has(id);
  }

  meta(id: string): M | undefined {
    const n = this.#numberOf.get(id);
    return n === undefined ? undefined : this.#metas[n];
  }

  /** Adds a document, or replaces the one with the same id. */
  add(id: string, fields: Record<string, string | readonly string[] | undefined>, meta: M) {
    this.remove(id);
    const number = this.#ids.length;
    const width = this.#fields.length;
    // Flat scratch arrays, no typed array per term and no Array.from: allocation dominated indexing.
    const slotOf = this.#slotOf;
    const terms: number[] = [];
    const tfs: number[] = [];
    const lengths: number[] = [];
    const sequences: (Int32Array | undefined)[] = [];
    const count = (t: number, f: number) => {
      let slot = slotOf.get(t);
      if (slot === undefined) {
        slotOf.set(t, slot = terms.length);
        terms.push(t);
        for (let g = 0; g < width; g++) tfs.push(0);
      }
      if (tfs[slot * width + f]! < MAX_TF) tfs[slot * width + f]!++;
    };
    for (let f = 0; f < width; f++) {
      const spec = this.#fields[f]![1];
      const value = fields[this.#fields[f]![0]] ?? "";
      const surface = spec.verbatim ? undefined : words(typeof value === "string" ? value : value.join(" "));
      const keys = surface
        ? (this.#exactWords ? surface : surface.map(stem))
        : typeof value === "string"
        ? [value]
        : [...value];
      lengths.push(Math.min(keys.length, 0xffff));
      this.#lengthSums[f]! += lengths[f]!;
      const sequence = spec.phrases ? new Int32Array(keys.length) : undefined;
      sequences.push(sequence);
      for (let i = 0; i < keys.length; i++) {
        if (surface && this.#exactWords) {
          // One lookup per word for both of its terms: map lookups dominate indexing.
          const w = surface[i]!;
          let ids = this.#wordIds.get(w);
          if (!ids) {
            ids = [this.#termId(stem(w)), this.#termId(`=${w}`, w)];
            this.#wordIds.set(w, ids);
            this.#stemOfExact.set(ids[1], ids[0]);
          }
          if (sequence) sequence[i] = ids[0];
          count(ids[0], f);
          count(ids[1], f);
          continue;
        }
        const t = this.#termId(keys[i]!);
        if (sequence) sequence[i] = t;
        count(t, f);
      }
    }
    slotOf.clear();
    const termArray = new Int32Array(terms.length);
    for (let i = 0; i < terms.length; i++) termArray[i] = terms[i]!;
    this.#ids.push(id);
    this.#metas.push(meta);
    this.#own.push({ terms: termArray, lengths, sequences });
    this.#numberOf.set(id, number);
    const drifted = this.#drifted();
    for (let i = 0; i < terms.length; i++) {
      const tf = tfs.slice(i * width, (i + 1) * width);
      this.#postings[terms[i]!]!.push(number, tf, drifted ? 0 : this.#impact(tf, lengths));
    }
    if (drifted) this.#renormalize();
  }

  /** Every document's id and metadata, in insertion order. */
  *entries(): IterableIterator<[string, M]> {
    const ids = this.#ids;
    for (let n = 0; n < ids.length; n++) if (ids[n] !== undefined) yield [ids[n]!, this.#metas[n]!];
  }

  /** Every document's id, in insertion order (entries() without a pair per document). */
  ids(): string[] {
    return this.#ids.filter((id) => id !== undefined);
  }

  /** Changes a document's metadata (scope, flags) without re-indexing its text. */
  setMeta(id: string, meta: M) {
    const n = this.#numberOf.get(id);
    if (n !== undefined) this.#metas[n] = meta;
  }

  remove(id: string): boolean {
    const n = this.#numberOf.get(id);
    if (n === undefined) return false;
    this.#numberOf.delete(id);
    const terms = this.#termsOf(n);
    const [lengths, at] = this.#lengthsOf(n);
    for (let f = 0; f < this.#fields.length; f++) this.#lengthSums[f]! -= lengths[at + f]!;
    this.#ids[n] = undefined;
    this.#metas[n] = undefined;
    if (n >= this.#ownBase) this.#own[n - this.#ownBase] = undefined;
    for (const t of terms) {
      const p = this.#postings[t]!;
      p.df--;
      if (++p.dead * 2 > p.length) this.#compact(p);
    }
    return true;
  }

  /**
   * The k best documents for a query, best first, among those `accept` lets through (scope,
   * visibility). Scores are BM25F; documents the query cannot reach are never looked at.
   */
  search(query: string | ParsedQuery, k: number, accept?: (meta: M, id: string) => boolean): Hit[] {
    const q = typeof query === "string" ? parseQuery(query) : query;
    if (k <= 0 || this.size === 0) return [];
    const n = this.size;
    const lists: { p: Postings; idf: number; ub: number; at: number }[] = [];
    for (const [term, count] of q.terms) {
      const t = this.#termIds.get(term);
      const p = t === undefined ? undefined : this.#postings[t];
      if (!p || p.df === 0) continue;
      const idf = count * Math.log(1 + (n - p.df + 0.5) / (p.df + 0.5));
      lists.push({ p, idf, ub: idf * p.maxImpact, at: 0 });
    }
    if (lists.length === 0) return [];
    lists.sort((a, b) => a.ub - b.ub);
    // prefix[i]: the most lists[0..i) can add together.
    const prefix = [0];
    for (const l of lists) prefix.push(prefix.at(-1)! + l.ub);
    const phrases = q.phrases.map((ph) => ph.map((s) => this.#termIds.get(s) ?? -2));
    const excluded = q.excluded.flatMap((s) => {
      const t = this.#termIds.get(s);
      return t === undefined ? [] : [this.#postings[t]!];
    });

    const heap = new TopK(k);
    let essential = 0; // lists[essential..] are essential
    const raise = () => {
      while (essential < lists.length && prefix[essential + 1]! <= heap.threshold) essential++;
    };
    for (;;) {
      let doc = Infinity;
      for (let i = essential; i < lists.length; i++) {
        const l = lists[i]!;
        if (l.at < l.p.length && l.p.docs[l.at]! < doc) doc = l.p.docs[l.at]!;
      }
      if (doc === Infinity) break;
      let score = 0;
      for (let i = essential; i < lists.length; i++) {
        const l = lists[i]!;
        if (l.at < l.p.length && l.p.docs[l.at] === doc) {
          score += l.idf * l.p.impacts[l.at]!;
          l.at++;
        }
      }
      for (let i = essential - 1; i >= 0; i--) {
        if (score + prefix[i + 1]! <= heap.threshold) break;
        const l = lists[i]!;
        l.at = l.p.seek(doc, l.at);
        if (l.at < l.p.length && l.p.docs[l.at] === doc) score += l.idf * l.p.impacts[l.at]!;
      }
      if (heap.full && score <= heap.threshold) continue;
      const id = this.#ids[doc];
      if (id === undefined) continue; // removed; its postings go at the next compaction
      if (accept && !accept(this.#metas[doc]!, id)) continue;
      if (phrases.length && !phrases.every((ph) => this.#hasPhrase(doc, ph))) continue;
      if (excluded.some((p) => this.#holds(p, doc))) continue;
      heap.push(id, score);
      raise();
    }
    return heap.sorted();
  }

  /**
   * One page of the documents matching a boolean query, ranked by tier then BM25F, with the number of
   * matches. Every candidate of the most selective clause is visited (the others are probed by binary
   * search), so the total is exact and the cost follows that clause's size, not the index's.
   */
  match(query: MatchQuery, options: MatchOptions<M>): MatchPage {
    const offset = options.offset ?? 0;
    const cap = options.countCap ?? Infinity;
    const all = (query.mode ?? "all") === "all";
    const clauses = query.clauses.map((c) => this.#resolve(c));
    const excluded = (query.exclude ?? []).map((c) => this.#resolve(c));
    const candidates = this.#candidates(clauses, all);
    const tiers = this.#fields.map(([, f]) => f.tier);
    const excludable = this.#fields.map(([, f]) => f.excludable);
    const tiebreak = options.tiebreak;
    const better = (a: Scored, b: Scored) => {
      if (a.score !== b.score) return a.score > b.score;
      const t = tiebreak ? tiebreak(this.#metas[a.doc]!, this.#metas[b.doc]!) : 0;
      return t !== 0 ? t < 0 : this.#ids[a.doc]! < this.#ids[b.doc]!;
    };
    const top = new Best(offset + options.limit, better);
    let count = 0;
    // The score of the candidate's clauses; with `lazy`, phrases are taken as found (an upper bound).
    const evaluate = (doc: number, lazy: boolean): number | undefined => {
      let score = 0, tier = 0, ranked = false, matched = 0;
      for (const clause of clauses) {
        const got = this.#clauseAt(clause, doc, null, lazy);
        if (got) {
          matched++;
          if (clause.scored) {
            for (const l of got) {
              score += l.idf * l.p.impacts[l.hit]!;
              ranked = true;
              const fc = l.p.fieldCount;
              for (let f = 0; f < fc; f++) {
                if (l.p.tfs[l.hit * fc + f]! > 0 && tiers[f]! > tier) tier = tiers[f]!;
              }
            }
          }
        } else if (all) break;
      }
      if (all ? matched < clauses.length : clauses.length > 0 && matched === 0) return undefined;
      return ranked ? tier + score / (1 + score) : 0;
    };
    for (const doc of candidates) {
      const id = this.#ids[doc];
      if (id === undefined) continue;
      this.#unverified = false;
      let score = evaluate(doc, true);
      if (score === undefined) continue;
      if (excluded.some((c) => this.#clauseAt(c, doc, excludable, false) !== undefined)) continue;
      if (options.accept && !options.accept(this.#metas[doc]!, id)) continue;
      if (this.#unverified) {
        // Scanning for phrases is the costly part: once the count is past its cap, only a document
        // that could enter the page is checked.
        if (count > cap && !top.admits({ doc, score })) continue;
        score = evaluate(doc, false);
        if (score === undefined) continue;
      }
      count++;
      top.push({ doc, score });
    }
    return {
      total: Math.min(count, cap),
      totalCapped: count > cap,
      hits: top.sorted().slice(offset).map((h) => ({ id: this.#ids[h.doc]!, score: h.score })),
    };
  }

  /** The live exact-word term ids starting with `prefix`. */
  #prefixTerms(prefix: string): number[] {
    if (this.#newWords.length > 1024) {
      this.#vocabulary = this.#vocabulary.concat(this.#newWords).sort();
      this.#newWords = [];
    }
    const out: number[] = [];
    const take = (w: string) => {
      const t = this.#termIds.get(`=${w}`);
      if (t !== undefined && this.#postings[t]!.df > 0) out.push(t);
    };
    const v = this.#vocabulary;
    let lo = 0, hi = v.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < v.length && v[i]!.startsWith(prefix); i++) take(v[i]!);
    for (const w of this.#newWords) if (w.startsWith(prefix)) take(w);
    return out;
  }

  #resolve(clause: MatchClause): Resolved {
    const n = this.size;
    const groups = clause.anyOf.map((g): ResolvedGroup => ({
      phrase: (g.phrase ?? false) && g.words.length > 1,
      positions: g.words.map((terms) => {
        const lists: Cursor[] = [];
        const ids: number[] = [];
        for (const term of terms) {
          const found = typeof term === "string" ? [this.#termIds.get(term)] : this.#prefixTerms(term.prefix);
          for (const t of found) {
            if (t === undefined) continue;
            ids.push(this.#stemOfExact.get(t) ?? t);
            const p = this.#postings[t]!;
            if (p.df === 0) continue;
            lists.push({ p, idf: Math.log(1 + (n - p.df + 0.5) / (p.df + 0.5)), at: 0, hit: -1 });
          }
        }
        return { lists, ids, df: lists.reduce((sum, l) => sum + l.p.df, 0) };
      }),
    }));
    return { groups, scored: clause.scored ?? true };
  }

  /** Documents that can match, ascending: the most selective clause's (all) or every clause's (any). */
  #candidates(clauses: Resolved[], all: boolean): Iterable<number> {
    if (clauses.length === 0) return this.#ids.flatMap((id, n) => (id === undefined ? [] : [n]));
    // A group's documents are among its rarest position's; a clause's among its groups'.
    const drivers = clauses.map((c) =>
      c.groups.map((g) => g.positions.reduce((best, p) => (p.df < best.df ? p : best)))
    );
    const cost = (ps: ResolvedPosition[]) => ps.reduce((sum, p) => sum + p.df, 0);
    const chosen = all ? [drivers.reduce((best, d) => (cost(d) < cost(best) ? d : best))] : drivers;
    const lists = chosen.flat().flatMap((p) => p.lists);
    const docs = new Int32Array(lists.reduce((sum, l) => sum + l.p.length, 0));
    let at = 0;
    for (const l of lists) {
      docs.set(l.p.docs.subarray(0, l.p.length), at);
      at += l.p.length;
    }
    docs.sort();
    return docs.filter((d, i) => i === 0 || docs[i - 1] !== d);
  }

  /**
   * The lists of a clause's first matching group that hold the document, or undefined when no group
   * matches. `fields` limits which fields count (exclusions look only at excludable ones); `lazy`
   * takes a phrase as found when its words are there, and says so in #unverified.
   */
  #clauseAt(
    clause: Resolved,
    doc: number,
    fields: boolean[] | null,
    lazy: boolean,
  ): Cursor[] | undefined {
    for (const group of clause.groups) {
      const got: Cursor[] = [];
      let ok = true;
      for (const position of group.positions) {
        let any = false;
        for (const l of position.lists) {
          if (l.at < l.p.length && l.p.docs[l.at]! < doc) l.at = l.p.seek(doc, l.at);
          l.hit = l.at < l.p.length && l.p.docs[l.at] === doc ? l.at : -1;
          if (
            l.hit < 0 || (fields && !fields.some((on, f) => on && l.p.tfs[l.hit * l.p.fieldCount + f]! > 0))
          ) {
            continue;
          }
          any = true;
          got.push(l);
        }
        if (!any) {
          ok = false;
          break;
        }
      }
      if (ok && group.phrase) {
        if (lazy) this.#unverified = true;
        else if (!this.#hasSequence(doc, group.positions.map((p) => p.ids))) ok = false;
      }
      if (ok) return got;
    }
    return undefined;
  }

  /**
   * The index as bytes (see frame.ts): dictionary, ids and metadata in a JSON header, postings and
   * per-document term lists as typed arrays. Removed documents are left out and the rest renumbered
   * in order, so a loaded index starts compacted. `encodeMeta` turns metadata into JSON values;
   * without it no metadata is written (a caller that stores it itself, in `entries()` order).
   */
  serialize(encodeMeta?: (meta: M) => unknown): Uint8Array {
    const width = this.#fields.length;
    const renumber = new Int32Array(this.#ids.length).fill(-1);
    // The live documents' numbers, in order.
    const live: number[] = [];
    this.#ids.forEach((id, n) => {
      if (id !== undefined) renumber[n] = live.push(n) - 1;
    });
    let total = 0;
    for (const p of this.#postings) total += p.df;
    const postStart = new Uint32Array(this.#postings.length + 1);
    const postDocs = new Int32Array(total);
    const postImpacts = new Float32Array(total);
    const postTfs = new Uint8Array(total * width);
    let at = 0;
    for (const p of this.#postings) {
      postStart[p.id] = at;
      for (let i = 0; i < p.length; i++) {
        const n = renumber[p.docs[i]!]!;
        if (n < 0) continue;
        postDocs[at] = n;
        postImpacts[at] = p.impacts[i]!;
        postTfs.set(p.tfs.subarray(i * width, (i + 1) * width), at * width);
        at++;
      }
    }
    postStart[this.#postings.length] = at;
    // Term lists sorted and written as differences, phrase sequences as they are: varints both.
    const termStart = new Uint32Array(live.length + 1);
    const seqStart = new Uint32Array(live.length * width + 1);
    const lengths = new Uint16Array(live.length * width);
    const terms = new VarintWriter(), sequences = new VarintWriter();
    live.forEach((old, n) => {
      let previous = 0;
      for (const t of Int32Array.from(this.#termsOf(old)).sort()) {
        terms.write(t - previous);
        previous = t;
      }
      termStart[n + 1] = terms.length;
      const seqs = this.#sequencesOf(old);
      const [l, at] = this.#lengthsOf(old);
      for (let f = 0; f < width; f++) {
        for (const t of seqs[f] ?? []) sequences.write(t);
        seqStart[n * width + f + 1] = sequences.length;
        lengths[n * width + f] = l[at + f]!;
      }
    });
    const header = {
      fields: this.#fields,
      exactWords: this.#exactWords,
      bm25: [this.#k1, this.#b],
      terms: [...this.#termIds.keys()],
      ids: live.map((n) => this.#ids[n]!),
      ...(encodeMeta ? { metas: live.map((n) => encodeMeta(this.#metas[n]!)) } : {}),
      lengthSums: this.#lengthSums,
      normAverages: this.#normAverages,
    };
    return encodeFrame(SNAPSHOT_MAGIC, header, [
      postStart,
      postDocs,
      postImpacts,
      postTfs,
      termStart,
      terms.bytes(),
      seqStart,
      sequences.bytes(),
      lengths,
    ]);
  }

  /**
   * An index read back from `serialize`'s bytes. Throws when they are damaged (checksum), truncated,
   * or were written with other fields or weights: the caller then builds the index anew. Postings and
   * term lists stay views into `bytes`. `decodeMeta` gets each document's stored metadata (undefined
   * when none was written) and its position in `entries()` order. `read.checked`: the caller checked
   * the bytes already (an enclosing frame's checksum).
   */
  static deserialize<M>(
    fields: Record<string, FieldSpec>,
    bytes: Uint8Array,
    decodeMeta: (value: unknown, n: number) => M,
    options: IndexOptions = {},
    read: ReadOptions = {},
  ): FullTextIndex<M> {
    const packed = !startsWith(bytes, SNAPSHOT_MAGIC_2);
    const frame = decodeFrame(packed ? SNAPSHOT_MAGIC : SNAPSHOT_MAGIC_2, bytes, read);
    const header = frame.header as {
      fields: [string, Required<FieldSpec>][];
      exactWords: boolean;
      /** k1 and b; snapshots before these were options were written with the defaults. */
      bm25?: [number, number];
      terms: string[];
      ids: string[];
      metas?: unknown[];
      lengthSums: number[];
      normAverages: number[];
    };
    const index = new FullTextIndex<M>(fields, options);
    if (JSON.stringify(header.fields) !== JSON.stringify(index.#fields)) {
      throw new Error("snapshot was written with other fields");
    }
    const [k1, b] = header.bm25 ?? [K1, B];
    if (header.exactWords !== index.#exactWords || k1 !== index.#k1 || b !== index.#b) {
      throw new Error("snapshot was written with other options");
    }
    const width = index.#fields.length;
    const postStart = frame.next(Uint32Array);
    const postDocs = frame.next(Int32Array);
    const postImpacts = frame.next(Float32Array);
    const postTfs = frame.next(Uint8Array);
    const termStart = frame.next(Uint32Array);
    const terms = frame.next(packed ? Uint8Array : Int32Array);
    const seqStart = frame.next(Uint32Array);
    const sequences = frame.next(packed ? Uint8Array : Int32Array);
    const lengths = frame.next(Uint16Array);
    const docCount = header.ids.length;
    if (
      postStart.length !== header.terms.length + 1 || termStart.length !== docCount + 1 ||
      seqStart.length !== docCount * width + 1 || lengths.length !== docCount * width ||
      (header.metas !== undefined && header.metas.length !== docCount) ||
      postStart[header.terms.length] !== postDocs.length ||
      termStart[docCount] !== terms.length || seqStart[docCount * width] !== sequences.length
    ) {
      throw new Error("snapshot sections do not agree");
    }
    header.terms.forEach((term, t) => {
      index.#termIds.set(term, t);
      if (index.#exactWords && term.startsWith("=")) index.#vocabulary.push(term.slice(1));
      const from = postStart[t]!, to = postStart[t + 1]!;
      index.#postings.push(
        Postings.of(
          t,
          width,
          postDocs.subarray(from, to),
          postImpacts.subarray(from, to),
          postTfs.subarray(from * width, to * width),
        ),
      );
    });
    // No arrays per document: creating 300k views was most of a 100k-document load.
    index.#pool = { count: docCount, packed, termStart, terms, seqStart, sequences, lengths };
    index.#ownBase = docCount;
    // The parsed ids array is the index's own: no copy, no object per document. They are hashed
    // when one is first looked up (a search does not).
    index.#ids = header.ids;
    index.#numberOf.adopt(0, docCount);
    for (let n = 0; n < docCount; n++) index.#metas.push(decodeMeta(header.metas?.[n], n));
    // Exact words: the sorted vocabulary for prefixes, and each word's stem and exact term ids.
    index.#vocabulary.sort();
    for (const w of index.#vocabulary) {
      const stemId = index.#termIds.get(stem(w)), exactId = index.#termIds.get(`=${w}`)!;
      if (stemId === undefined) continue;
      index.#stemOfExact.set(exactId, stemId);
      index.#wordIds.set(w, [stemId, exactId]);
    }
    header.lengthSums.forEach((s, f) => (index.#lengthSums[f] = s));
    index.#normAverages = header.normAverages;
    return index;
  }

  /** The term's id, made when new; `word` is given for an exact-word term (for prefix lookups). */
  #termId(s: string, word?: string): number {
    let t = this.#termIds.get(s);
    if (t === undefined) {
      t = this.#postings.length;
      this.#termIds.set(s, t);
      this.#postings.push(new Postings(t, this.#fields.length));
      if (word !== undefined) this.#newWords.push(word);
    }
    return t;
  }

  /** The document's own arrays; undefined for one a snapshot loaded (and a removed one). */
  #ownOf(n: number): Own | undefined {
    return n < this.#ownBase ? undefined : this.#own[n - this.#ownBase];
  }

  #termsOf(n: number): Int32Array {
    const own = this.#ownOf(n);
    if (own) return own.terms;
    const pool = this.#pool!;
    const from = pool.termStart[n]!, to = pool.termStart[n + 1]!;
    return pool.packed
      ? readVarints(pool.terms as Uint8Array, from, to, true)
      : (pool.terms as Int32Array).subarray(from, to);
  }

  /** Each field's phrase sequence (undefined for fields without phrases). */
  #sequencesOf(n: number): (Int32Array | undefined)[] {
    const own = this.#ownOf(n);
    if (own) return own.sequences;
    const pool = this.#pool!, width = this.#fields.length;
    return this.#fields.map(([, f], k) => {
      if (!f.phrases) return undefined;
      const from = pool.seqStart[n * width + k]!, to = pool.seqStart[n * width + k + 1]!;
      return pool.packed
        ? readVarints(pool.sequences as Uint8Array, from, to)
        : (pool.sequences as Int32Array).subarray(from, to);
    });
  }

  /** The array holding the document's field lengths, and where they start in it. */
  #lengthsOf(n: number): [ArrayLike<number>, number] {
    const own = this.#ownOf(n);
    return own ? [own.lengths, 0] : [this.#pool!.lengths, n * this.#fields.length];
  }

  #impact(tf: ArrayLike<number>, lengths: ArrayLike<number>, at = 0): number {
    let pseudo = 0;
    for (let f = 0; f < tf.length; f++) {
      if (!tf[f]) continue;
      const avg = this.#normAverages[f]! || 1;
      const spec = this.#fields[f]![1], b = spec.b ?? this.#b;
      pseudo += spec.weight * tf[f]! / (1 - b + b * lengths[at + f]! / avg);
    }
    return pseudo * (this.#k1 + 1) / (pseudo + this.#k1);
  }

  #drifted(): boolean {
    const n = this.size || 1;
    return this.#lengthSums.some((sum, f) => {
      const now = sum / n, then = this.#normAverages[f]!;
      return then === 0 ? now > 0 : Math.abs(now - then) > then / 4;
    });
  }

  /** Recomputes every impact against today's average field lengths. */
  #renormalize() {
    const n = this.size || 1;
    this.#normAverages = this.#lengthSums.map((sum) => sum / n);
    for (const p of this.#postings) {
      p.maxImpact = 0;
      for (let i = 0; i < p.length; i++) {
        const doc = p.docs[i]!;
        if (this.#ids[doc] === undefined) continue;
        const tf = p.tfs.subarray(i * p.fieldCount, (i + 1) * p.fieldCount);
        const impact = this.#impact(tf, ...this.#lengthsOf(doc));
        p.impacts[i] = impact;
        if (impact > p.maxImpact) p.maxImpact = impact;
      }
    }
  }

  /** Drops a list's postings of removed documents (its highest impact stays an upper bound). */
  #compact(p: Postings) {
    let j = 0;
    for (let i = 0; i < p.length; i++) {
      if (this.#ids[p.docs[i]!] === undefined) continue;
      p.docs[j] = p.docs[i]!;
      p.impacts[j] = p.impacts[i]!;
      p.tfs.copyWithin(j * p.fieldCount, i * p.fieldCount, (i + 1) * p.fieldCount);
      j++;
    }
    p.length = j;
    p.dead = 0;
  }

  #hasPhrase(n: number, phrase: number[]): boolean {
    return this.#hasSequence(n, phrase.map((t) => [t]));
  }

  /** Whether a phrase field holds, at consecutive positions, one of the ids of each position. */
  #hasSequence(number: number, positions: readonly (readonly number[])[]): boolean {
    const n = positions.length;
    if (n === 0) return false;
    const first = positions[0]!;
    const single = first.length === 1 ? first[0]! : -1;
    for (const seq of this.#sequencesOf(number)) {
      if (!seq) continue;
      const end = seq.length - n;
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
    }
    return false;
  }

  /**
   * Whether some document holds the term (a stem, as ParsedQuery's) in the field: e.g. whether a query's
   * word names one of the speakers. Reads the term's postings up to the first such document; a field
   * no document has costs nothing.
   */
  inField(term: string, field: string): boolean {
    const f = this.#fields.findIndex(([name]) => name === field);
    if (f < 0 || this.#lengthSums[f] === 0) return false;
    const t = this.#termIds.get(term);
    const p = t === undefined ? undefined : this.#postings[t];
    if (!p || p.df === 0) return false;
    for (let i = 0; i < p.length; i++) {
      if (p.tfs[i * p.fieldCount + f]! > 0 && this.#ids[p.docs[i]!] !== undefined) return true;
    }
    return false;
  }

  /** Whether the document holds the term in an excludable field. */
  #holds(p: Postings, doc: number): boolean {
    const i = p.seek(doc, 0);
    if (i >= p.length || p.docs[i] !== doc) return false;
    return this.#fields.some(([, f], fi) => f.excludable && p.tfs[i * p.fieldCount + fi]! > 0);
  }
}

/**
 * Web-search-style syntax: words, "quoted phrases", -excluded words; `or` is a word like the
 * others (every word ranks anyway). Stop words and question words are dropped from the ranked
 * terms unless nothing would be left.
 */
export function parseQuery(query: string): ParsedQuery {
  const phrases: string[][] = [];
  const excluded: string[] = [];
  const ranked: string[] = [];
  const re = /(-?)"([^"]*)"|(-?)(\S+)/g;
  for (const m of query.matchAll(re)) {
    if (m[2] !== undefined) {
      const ws = words(m[2]);
      if (m[1]) excluded.push(...ws.map(stem));
      else if (ws.length) {
        phrases.push(ws.map(stem));
        ranked.push(...ws);
      }
    } else if (m[3] && m[4]) {
      excluded.push(...words(m[4]).map(stem));
    } else if (m[4]) {
      ranked.push(...words(m[4]));
    }
  }
  const content = ranked.filter((w) => !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w));
  const kept = content.length ? content : ranked;
  const terms = new Map<string, number>();
  for (const w of kept) {
    const s = stem(w);
    terms.set(s, (terms.get(s) ?? 0) + 1);
  }
  return { terms, phrases, excluded };
}

interface Cursor {
  p: Postings;
  idf: number;
  /** Position reached in the list, and the current document's position in it (-1: not there). */
  at: number;
  hit: number;
}

interface ResolvedPosition {
  lists: Cursor[];
  /** Term ids a phrase may hold at this position (stems of exact words). */
  ids: number[];
  df: number;
}

interface ResolvedGroup {
  positions: ResolvedPosition[];
  phrase: boolean;
}

interface Resolved {
  groups: ResolvedGroup[];
  scored: boolean;
}

interface Scored {
  doc: number;
  score: number;
}

/** The k best of what is pushed, by `better`: a heap whose root is the worst kept. */
class Best {
  readonly #items: Scored[] = [];
  constructor(readonly k: number, readonly better: (a: Scored, b: Scored) => boolean) {}
  push(item: Scored) {
    const items = this.#items;
    if (this.k <= 0) return;
    if (items.length < this.k) {
      items.push(item);
      for (let i = items.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!this.better(items[parent]!, items[i]!)) break;
        [items[parent], items[i]] = [items[i]!, items[parent]!];
        i = parent;
      }
      return;
    }
    if (!this.better(item, items[0]!)) return;
    items[0] = item;
    for (let i = 0;;) {
      const l = 2 * i + 1, r = l + 1;
      let worst = i;
      if (l < items.length && this.better(items[worst]!, items[l]!)) worst = l;
      if (r < items.length && this.better(items[worst]!, items[r]!)) worst = r;
      if (worst === i) break;
      [items[worst], items[i]] = [items[i]!, items[worst]!];
      i = worst;
    }
  }
  /** Whether the item would be kept now. */
  admits(item: Scored): boolean {
    return this.#items.length < this.k || this.better(item, this.#items[0]!);
  }
  sorted(): Scored[] {
    return [...this.#items].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
  }
}

/** A bounded min-heap of scored ids: the k best seen so far. */
class TopK {
  readonly #ids: string[] = [];
  readonly #scores: number[] = [];
  constructor(readonly k: number) {}
  get full() {
    return this.#ids.length >= this.k;
  }
  /** A document must score above this to enter (0 until k are in). */
  get threshold() {
    return this.full ? this.#scores[0]! : 0;
  }
  push(id: string, score: number) {
    const ids = this.#ids, scores = this.#scores;
    if (!this.full) {
      ids.push(id);
      scores.push(score);
      for (let i = ids.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (scores[parent]! <= scores[i]!) break;
        this.#swap(i, parent);
        i = parent;
      }
      return;
    }
    if (score <= scores[0]!) return;
    ids[0] = id;
    scores[0] = score;
    for (let i = 0;;) {
      const l = 2 * i + 1, r = l + 1;
      let min = i;
      if (l < ids.length && scores[l]! < scores[min]!) min = l;
      if (r < ids.length && scores[r]! < scores[min]!) min = r;
      if (min === i) break;
      this.#swap(i, min);
      i = min;
    }
  }
  #swap(a: number, b: number) {
    [this.#ids[a], this.#ids[b]] = [this.#ids[b]!, this.#ids[a]!];
    [this.#scores[a], this.#scores[b]] = [this.#scores[b]!, this.#scores[a]!];
  }
  sorted(): Hit[] {
    return this.#ids.map((id, i) => ({ id, score: this.#scores[i]! }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** Whether the bytes begin with the text's UTF-8 (an ASCII magic). */
function startsWith(bytes: Uint8Array, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[i] !== text.charCodeAt(i)) return false;
  return true;
}
