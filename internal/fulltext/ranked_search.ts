/**
 * Ranked search (FullTextIndex.search): the k best documents for a query by BM25F, with MaxScore
 * (query terms ordered by the most they can add; documents drawn only from the lists that can still
 * lift one into the top k, the others probed by binary search while they could), so documents the
 * query cannot reach are never looked at.
 */
import type { IndexData } from "./index_data.ts";
import { type ParsedQuery, parseQuery } from "./parse_query.ts";
import type { Postings } from "./postings.ts";

export interface Hit {
  id: string;
  score: number;
}

/**
 * The k best documents for a query, best first, among those `accept` lets through (scope,
 * visibility). Scores are BM25F; documents the query cannot reach are never looked at.
 */
export function rankedSearch<M>(
  d: IndexData<M>,
  query: string | ParsedQuery,
  k: number,
  accept?: (meta: M, id: string) => boolean,
): Hit[] {
  const q = typeof query === "string" ? parseQuery(query) : query;
  if (k <= 0 || d.size === 0) return [];
  const n = d.size;
  const lists: { p: Postings; idf: number; ub: number; at: number }[] = [];
  for (const [term, count] of q.terms) {
    const t = d.termIds.get(term);
    const p = t === undefined ? undefined : d.postings[t];
    if (!p || p.df === 0) continue;
    const idf = count * Math.log(1 + (n - p.df + 0.5) / (p.df + 0.5));
    lists.push({ p, idf, ub: idf * p.maxImpact, at: 0 });
  }
  if (lists.length === 0) return [];
  lists.sort((a, b) => a.ub - b.ub);
  // prefix[i]: the most lists[0..i) can add together.
  const prefix = [0];
  for (const l of lists) prefix.push(prefix.at(-1)! + l.ub);
  const phrases = q.phrases.map((ph) => ph.map((s) => d.termIds.get(s) ?? -2));
  const excluded = q.excluded.flatMap((s) => {
    const t = d.termIds.get(s);
    return t === undefined ? [] : [d.postings[t]!];
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
    const id = d.ids[doc];
    if (id === undefined) continue; // removed; its postings go at the next compaction
    if (accept && !accept(d.metas[doc]!, id)) continue;
    if (phrases.length && !phrases.every((ph) => d.hasPhrase(doc, ph))) continue;
    if (excluded.some((p) => d.holds(p, doc))) continue;
    heap.push(id, score);
    raise();
  }
  return heap.sorted();
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
