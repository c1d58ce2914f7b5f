/**
 * Query expansion for the keyword tier: each ranked query stem brings in the stems of its nearest words
 * by MiniLM's token vectors ("dog" → canine, animal, pup, pet, puppy), each weighted EXPANSION_WEIGHT × its
 * cosine, so a turn that answers in other words than the question's can still match. The table is derived
 * at build time (scripts/lib/minilm_static.ts: five neighbours for each of 13,995 stems of 21,571 words) and embedded;
 * without it (a source checkout that has not fetched the model) queries are left as they are.
 *
 * Measured on the conversational set (scripts/bench/recall_offline.ts), chosen on seed 7 (8 chats, 223
 * questions), hybrid R@5 / R@10 with the hashing embedder: none 0.659 / 0.713, weight 0.2 0.668 / 0.735,
 * 0.3 0.668 / 0.744, 0.5 0.668 / 0.740, 0.7 0.668 / 0.740. On the default set, held out: 0.643 / 0.711 →
 * 0.650 / 0.725 (builtin-static: 0.711 / 0.814 → 0.714 / 0.814). It moves paraphrase questions, whose
 * answer shares no word with the question. Cost: a question's 3.2 stems become 17.4 terms, and the
 * keyword tier's CPU per query at 10,000 turns goes from 0.09 to 0.23 ms (MaxScore skips most of the
 * neighbours' postings: they weigh little).
 */
import type { ParsedQuery } from "../../../internal/fulltext/mod.ts";
import { MINILM_FILES, miniLMFile } from "../embeddings/minilm_assets.ts";

/** A neighbour's weight in the query, per unit of cosine: well below its source word's 1. */
export const EXPANSION_WEIGHT = 0.3;

/** Stem → its neighbours' stems and cosines, best first. */
export type Neighbours = ReadonlyMap<string, readonly (readonly [string, number])[]>;

let loading: Promise<Neighbours | null> | undefined;

/** The embedded table, read once per process; null when this build or checkout has none. */
export function loadNeighbours(): Promise<Neighbours | null> {
  loading ??= (async () => {
    const bytes = await miniLMFile(MINILM_FILES.wordNeighbours);
    if (!bytes) return null;
    const json = JSON.parse(new TextDecoder().decode(bytes)) as Record<
      string,
      [string, number][]
    >;
    return new Map(Object.entries(json));
  })();
  return loading;
}

/** The query with its stems' neighbours added (stems already in it keep their own weight). */
export function expandQuery(
  query: ParsedQuery,
  neighbours: Neighbours | null,
  weight = EXPANSION_WEIGHT,
): ParsedQuery {
  if (!neighbours || query.terms.size === 0) return query;
  const terms = new Map(query.terms);
  for (const s of query.terms.keys()) {
    for (const [n, cosine] of neighbours.get(s) ?? []) {
      if (!query.terms.has(n)) terms.set(n, Math.max(terms.get(n) ?? 0, weight * cosine));
    }
  }
  return { ...query, terms };
}
