/**
 * Boolean matching (FullTextIndex.match): one page of the documents matching every clause (or any),
 * with OR groups, phrases in any phrase field, exact prefixes, exclusions and filter terms that do not
 * rank, ranked by field tier then BM25F, and the count of matches. Every candidate of the most
 * selective clause is visited (the others are probed by binary search), so the total is exact and the
 * cost follows that clause's size, not the index's.
 */
import type { IndexData } from "./index_data.ts";
import type { Postings } from "./postings.ts";
import type { Hit } from "./ranked_search.ts";

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
  /** Each position's ids, for the phrase check. */
  sequence: number[][];
  /**
   * The lists holding the document #clauseAt looked at last: the first `gotCount` of `got`, an array
   * per group refilled per call (an array per candidate was a third of a search's garbage).
   */
  got: Cursor[];
  gotCount: number;
}

interface Resolved {
  groups: ResolvedGroup[];
  scored: boolean;
}

interface Scored {
  doc: number;
  score: number;
}

/**
 * The k best of what is pushed, by `better`: a heap whose root is the worst kept. A pushed document
 * becomes an object only when it is kept (a pair per match was garbage for all but a page's worth).
 */
class Best {
  readonly #items: Scored[] = [];
  /** The candidate being compared, before it is known to be kept. */
  readonly #probe: Scored = { doc: 0, score: 0 };
  constructor(readonly k: number, readonly better: (a: Scored, b: Scored) => boolean) {}
  push(doc: number, score: number) {
    if (!this.admits(doc, score)) return;
    const items = this.#items;
    const item = { doc, score };
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
  /** Whether the document would be kept now. */
  admits(doc: number, score: number): boolean {
    if (this.k <= 0) return false;
    if (this.#items.length < this.k) return true;
    this.#probe.doc = doc;
    this.#probe.score = score;
    return this.better(this.#probe, this.#items[0]!);
  }
  sorted(): Scored[] {
    return [...this.#items].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
  }
}

/**
 * One page of the documents matching a boolean query, ranked by tier then BM25F, with the number of
 * matches (FullTextIndex.match).
 */
export function booleanMatch<M>(d: IndexData<M>, query: MatchQuery, options: MatchOptions<M>): MatchPage {
  return new BooleanMatch(d).match(query, options);
}

/** One match() over an index: its query's cursors live as long as the call. */
class BooleanMatch<M> {
  /** Set by a lazy #clauseAt that took a phrase as found without scanning for it. */
  #unverified = false;

  constructor(private readonly d: IndexData<M>) {}

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
    const tiers = this.d.fields.map(([, f]) => f.tier);
    const excludable = this.d.fields.map(([, f]) => f.excludable);
    const tiebreak = options.tiebreak;
    const better = (a: Scored, b: Scored) => {
      if (a.score !== b.score) return a.score > b.score;
      const t = tiebreak ? tiebreak(this.d.metas[a.doc]!, this.d.metas[b.doc]!) : 0;
      return t !== 0 ? t < 0 : this.d.ids[a.doc]! < this.d.ids[b.doc]!;
    };
    const top = new Best(offset + options.limit, better);
    let count = 0;
    // The score of the candidate's clauses; with `lazy`, phrases are taken as found (an upper bound).
    const evaluate = (doc: number, lazy: boolean): number | undefined => {
      let score = 0, tier = 0, ranked = false, matched = 0;
      for (const clause of clauses) {
        const group = this.#clauseAt(clause, doc, null, lazy);
        if (group) {
          matched++;
          if (clause.scored) {
            for (let i = 0; i < group.gotCount; i++) {
              const l = group.got[i]!;
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
    for (let c = 0; c < candidates.length; c++) {
      const doc = candidates[c]!;
      const id = this.d.ids[doc];
      if (id === undefined) continue;
      this.#unverified = false;
      let score = evaluate(doc, true);
      if (score === undefined) continue;
      if (excluded.some((c) => this.#clauseAt(c, doc, excludable, false) !== undefined)) continue;
      if (options.accept && !options.accept(this.d.metas[doc]!, id)) continue;
      if (this.#unverified) {
        // Scanning for phrases is the costly part: once the count is past its cap, only a document
        // that could enter the page is checked.
        if (count > cap && !top.admits(doc, score)) continue;
        score = evaluate(doc, false);
        if (score === undefined) continue;
      }
      count++;
      top.push(doc, score);
    }
    return {
      total: Math.min(count, cap),
      totalCapped: count > cap,
      hits: top.sorted().slice(offset).map((h) => ({ id: this.d.ids[h.doc]!, score: h.score })),
    };
  }

  #resolve(clause: MatchClause): Resolved {
    const n = this.d.size;
    const groups = clause.anyOf.map((g) => ({
      phrase: (g.phrase ?? false) && g.words.length > 1,
      positions: g.words.map((terms): ResolvedPosition => {
        const lists: Cursor[] = [];
        const ids: number[] = [];
        for (const term of terms) {
          const found = typeof term === "string"
            ? [this.d.termIds.get(term)]
            : this.d.prefixTerms(term.prefix);
          for (const t of found) {
            if (t === undefined) continue;
            ids.push(this.d.stemOfExact.get(t) ?? t);
            const p = this.d.postings[t]!;
            if (p.df === 0) continue;
            lists.push({ p, idf: Math.log(1 + (n - p.df + 0.5) / (p.df + 0.5)), at: 0, hit: -1 });
          }
        }
        return { lists, ids, df: lists.reduce((sum, l) => sum + l.p.df, 0) };
      }),
    })).map((g): ResolvedGroup => ({ ...g, sequence: g.positions.map((p) => p.ids), got: [], gotCount: 0 }));
    return { groups, scored: clause.scored ?? true };
  }

  /** Documents that can match, ascending: the most selective clause's (all) or every clause's (any). */
  #candidates(clauses: Resolved[], all: boolean): ArrayLike<number> {
    if (clauses.length === 0) return this.d.ids.flatMap((id, n) => (id === undefined ? [] : [n]));
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
    let kept = 0;
    for (let i = 0; i < docs.length; i++) {
      if (kept === 0 || docs[kept - 1] !== docs[i]) docs[kept++] = docs[i]!;
    }
    return docs.subarray(0, kept);
  }

  /**
   * A clause's first group that matches the document, with the lists holding it in `got` (valid until
   * the next call for this clause), or undefined when no group matches. `fields` limits which fields
   * count (exclusions look only at excludable ones); `lazy` takes a phrase as found when its words are
   * there, and says so in #unverified.
   */
  #clauseAt(
    clause: Resolved,
    doc: number,
    fields: boolean[] | null,
    lazy: boolean,
  ): ResolvedGroup | undefined {
    for (const group of clause.groups) {
      const got = group.got;
      let count = 0;
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
          got[count++] = l;
        }
        if (!any) {
          ok = false;
          break;
        }
      }
      if (ok && group.phrase) {
        if (lazy) this.#unverified = true;
        else if (!this.d.hasSequence(doc, group.sequence)) ok = false;
      }
      if (ok) {
        group.gotCount = count;
        return group;
      }
    }
    return undefined;
  }
}
