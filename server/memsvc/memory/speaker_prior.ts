/**
 * A question that names a speaker of the conversation ("What are Kate's hobbies?") wants what that
 * speaker said, yet both tiers favour the turns that name them, and in a chat those are mostly said *to*
 * them by the other party ("Hey Kate!", "How are you doing today Kate?"). So when a query's word names a
 * speaker of some entry in scope (metadata `speaker`; keyword_index.ts namedSpeakers), search scales the
 * score of every entry said by someone else, or by no one, by SPEAKER_FACTOR: still ranked, below a turn
 * of the named speaker that matches about as well. A query naming no speaker is not touched.
 *
 * Chosen on the dev halves of the recall sets (docs/benchmarks.md, "Public sets", issue 40's second
 * round; builtin-static, scripts/bench/recall_offline.ts --pool): a named speaker's turns weighing 1.1 /
 * 1.2 / 1.3 / 1.5 / 1.7 / 2 / 3 times the others' moved public hybrid R@5 / R@10 from 0.550 / 0.652 to
 * 0.561 / 0.654, 0.566 / 0.659, 0.571 / 0.668, 0.574 / 0.672, 0.579 / 0.675, 0.575 / 0.678 and 0.559 / 0.685
 * (FriendsQA falls past 1.7); the generated set has no speakers and does not move. 1.5 it is: the gain's
 * plateau, where neither set falls.
 */
import { analyze } from "../../../internal/fulltext/mod.ts";
import type { JsonValue } from "../store/db.ts";

export const SPEAKER_FACTOR = 1 / 1.5;

/** The speaker's stems per metadata object: a row copy is the same object search after search. */
const stemsOf = new WeakMap<object, string[]>();

function speakerStems(metadata: JsonValue): string[] {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return [];
  let stems = stemsOf.get(metadata);
  if (!stems) {
    const speaker = metadata.speaker;
    stemsOf.set(metadata, stems = typeof speaker === "string" ? analyze(speaker) : []);
  }
  return stems;
}

/** The factor a result's score is multiplied by, given the query's stems that name a speaker. */
export function speakerPrior(row: { metadata: JsonValue }, named: ReadonlySet<string>): number {
  if (named.size === 0) return 1;
  return speakerStems(row.metadata).some((s) => named.has(s)) ? 1 : SPEAKER_FACTOR;
}
