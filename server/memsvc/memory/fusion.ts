/**
 * How hybrid search blends its two tiers, per embedder: their score distributions differ, so each
 * embedder gets the blend measured best for it on the conversational recall set (docs/benchmarks.md,
 * scripts/bench/fusion_tune.ts).
 *
 * - `linear`: keyword × max-normalised BM25 + vector × raw cosine, renormalised over the tiers that
 *   answered (a missing tier's score counts 0).
 * - `zscore`: each tier's scores are z-scored over the candidates it returned (a candidate the tier did
 *   not return counts as its worst), blended with the weights, then min-max scaled to [0, 1] so the
 *   confidence prior and the response's `score` stay positive. Only when both tiers answered; a single
 *   tier falls back to `linear`, which then orders by that tier alone.
 *
 * Either way a candidate only the vector tier found is dropped below `floor` (unrelated texts score
 * below it).
 *
 * Each blend also sets how much the keyword tier's query expansion weighs (query_expansion.ts): how far
 * a paraphrase should lift a turn in BM25 depends on how much the blend leans on BM25 and on what the
 * vector tier already finds alone, so it was chosen per embedder with the rest.
 */
import { BGE_SMALL_ID, MINILM_ID, STATIC_ID } from "../embeddings/mod.ts";
import { EXPANSION_WEIGHT } from "./query_expansion.ts";

export interface Fusion {
  kind: "linear" | "zscore";
  keyword: number;
  vector: number;
  /** A candidate only the vector tier found is dropped below this cosine. */
  floor: number;
  /** The keyword tier's weight of an expansion neighbour, per unit of cosine (query_expansion.ts). */
  expansion: number;
}

/**
 * With the BM25 tier, keyword 0.6 / vector 0.4 of max-normalised BM25 and raw cosine (R@5 0.639
 * offline) beat 0.4 / 0.6 (0.586), and matched a z-scored sum at its best (0.637) and 0.7 / 0.3 (0.643);
 * reciprocal-rank fusion (0.498) fell below keyword alone (0.623).
 *
 * Expansion 1.2 (seeds 7, 11, 13 of the set, 20 chats each, 1,671 questions; the default seed held out;
 * scripts/bench/recall_offline.ts): hybrid R@5 / R@10 averaged 0.657 / 0.728 at 0.3, 0.664 / 0.769 at
 * 0.85, 0.686 / 0.784 at 1.0, 0.701 / 0.796 at 1.2 and 0.707 / 0.797 at 1.5 (which costs context
 * questions' R@10, 0.92 → 0.88). The hashing embedder knows no synonyms, so BM25 has to carry them.
 */
export const HASH_FUSION: Fusion = { kind: "linear", keyword: 0.6, vector: 0.4, floor: 0.2, expansion: 1.2 };

/**
 * For builtin-minilm, whose cosine alone beats BM25 on the set (R@5 0.747 against 0.590; 3 chats, 83
 * questions): a z-scored sum with keyword 0.4 reaches 0.819 (R@10 0.880) and stays within 0.04 of that from
 * 0.3 to 0.5; the linear blend peaks at keyword 0.2 (0.831) but falls to 0.711 at 0.4 and to 0.675 at the
 * hashing embedder's 0.6, so small changes in either tier's scores move it much more.
 */
export const MINILM_FUSION: Fusion = {
  kind: "zscore",
  keyword: 0.4,
  vector: 0.6,
  floor: 0.2,
  expansion: EXPANSION_WEIGHT, // not measured with this embedder
};

/**
 * For builtin-static, chosen on another seed of the set (seed 7, 8 chats, 223 questions; the default set
 * held out; scripts/bench/recall_offline.ts): a z-scored sum with keyword 0.55 (R@5 0.740, R@10 0.852)
 * against 0.5 (0.731 / 0.852), 0.6 (0.740 / 0.839) and 0.7 (0.700 / 0.789); the linear blend peaks far
 * lower (keyword 0.2: 0.668 / 0.731). Its cosines are centred (static_minilm.ts), so unrelated texts
 * score near 0 and the floor of 0.2 keeps what it finds alone (0.4 cost 0.04 of R@5).
 *
 * Expansion 0.85 (seeds 7, 11, 13, 20 chats each, 1,671 questions): hybrid R@5 / R@10 averaged 0.731 /
 * 0.833 at 0.3, 0.753 / 0.842 at 0.85, 0.757 / 0.838 at 1.0, 0.756 / 0.834 at 1.2, 0.737 / 0.827 at 2;
 * 0.85 is the one that raised R@10 on every seed. With it, keyword 0.5 gives 0.737 / 0.846 and 0.6
 * 0.751 / 0.838, so 0.55 stays.
 */
export const STATIC_FUSION: Fusion = {
  kind: "zscore",
  keyword: 0.55,
  vector: 0.45,
  floor: 0.2,
  expansion: 0.85,
};

/**
 * For builtin-bge-small, chosen on the dev halves of the recall sets (issue 40's second round; the
 * public sets' held-back halves and LoCoMo untouched; scripts/bench/recall_offline.ts --embedder
 * bge-small-en-v1.5): a z-scored sum with keyword 0.6 (R@5 / R@10 generated 0.779 / 0.851, REALTALK 0.578
 * / 0.663, FriendsQA 0.598 / 0.700) against 0.5 (0.779 / 0.858, 0.584 / 0.669, 0.582 / 0.688), 0.55 (0.772
 * / 0.854, 0.573 / 0.669, 0.591 / 0.697), 0.65 (0.765 / 0.847, 0.552 / 0.651, 0.602 / 0.694) and 0.4
 * (0.776 / 0.847, 0.581 / 0.695, 0.550 / 0.661); 0.6 keeps the generated set within a point of
 * builtin-static's. Floor and expansion as builtin-static's.
 */
export const BGE_SMALL_FUSION: Fusion = { ...STATIC_FUSION, keyword: 0.6, vector: 0.4 };

export function fusionFor(embedderId: string): Fusion {
  if (embedderId === MINILM_ID) return MINILM_FUSION;
  if (embedderId === BGE_SMALL_ID) return BGE_SMALL_FUSION;
  return embedderId === STATIC_ID ? STATIC_FUSION : HASH_FUSION;
}

/** A candidate's tier scores: `k` max-normalised BM25, `v` cosine clamped to [0, 1]. */
export interface TierScores {
  k?: number;
  v?: number;
}

/** Fewest scores per tier a z-scored blend is computed from (below it the linear blend). */
export const Z_SAMPLE = 8;

export function fuse(
  scores: ReadonlyMap<string, TierScores>,
  fusion: Fusion,
  answered: { keyword: boolean; vector: boolean },
): { id: string; fused: number }[] {
  const kept = [...scores.entries()].filter(([, s]) => s.k !== undefined || (s.v ?? 0) >= fusion.floor);
  const all = [...scores.values()];
  const sample = Math.min(
    all.filter((s) => s.k !== undefined).length,
    all.filter((s) => s.v !== undefined).length,
  );
  // z-scores need a distribution to stand against: over a handful of candidates (a small store) any gap
  // becomes a standard deviation, so there the weights blend the scores as they are.
  if (fusion.kind === "zscore" && answered.keyword && answered.vector && sample >= Z_SAMPLE) {
    // Statistics over everything each tier returned, before the floor: the tier's own distribution.
    const zk = zscorer(all.map((s) => s.k));
    const zv = zscorer(all.map((s) => s.v));
    // Into (0, 1) by the normal distribution's CDF (its logistic approximation), not rescaled to the
    // candidates at hand: min-max put the last of a few candidates at 0, where the date window's boost
    // and the confidence prior (factors) could not move it.
    return kept.map(([id, s]) => {
      const raw = fusion.keyword * zk(s.k) + fusion.vector * zv(s.v);
      return { id, fused: 1 / (1 + Math.exp(-1.702 * raw)) };
    });
  }
  const kw = answered.keyword ? fusion.keyword : 0;
  const vw = answered.vector ? fusion.vector : 0;
  return kept.map(([id, s]) => ({ id, fused: (kw * (s.k ?? 0) + vw * (s.v ?? 0)) / (kw + vw || 1) }));
}

/** z-score against the values present; an absent value scores as the lowest present one. */
function zscorer(values: (number | undefined)[]): (v: number | undefined) => number {
  const present = values.filter((v): v is number => v !== undefined);
  if (present.length === 0) return () => 0;
  const mean = present.reduce((s, v) => s + v, 0) / present.length;
  const sd = Math.sqrt(present.reduce((s, v) => s + (v - mean) ** 2, 0) / present.length) || 1;
  const lowest = (Math.min(...present) - mean) / sd;
  return (v) => v === undefined ? lowest : (v - mean) / sd;
}
