/**
 * A conversation turn that is itself a question rarely holds the answer to a later question about the
 * conversation ("What about Kate?", "How long have you been skiing?"), yet it shares the question's
 * words and shape, so both tiers rank it high. Search scales such a turn's score by
 * QUESTION_TURN_FACTOR: still ranked, below an answer that matches about as well.
 *
 * Chosen on the dev halves of the recall sets (docs/benchmarks.md, "Public sets"; together with the
 * keyword tier's speaker field): factor 0.9 / 0.8 / 0.7 / 0.5 moved hybrid R@5 of the generated set
 * 0.754 → 0.762 / 0.772 / 0.783 / 0.801, REALTALK 0.488 → 0.494 / 0.506 / 0.515 / 0.503 and FriendsQA
 * 0.540 → 0.543 / 0.543 / 0.539 / 0.525; 0.7 is where the public sets peak.
 *
 * Only turns of a conversation (entries with a session_id) are judged: a stored note phrased as a
 * question ("How do we rotate the signing key? Run …") is not a turn that asks.
 */
export const QUESTION_TURN_FACTOR = 0.7;

/** Whether the text ends with a question mark (closing quotes and brackets aside). */
export function isQuestionTurn(content: string): boolean {
  return /\?[\s"'”’)\]]*$/.test(content);
}

/** The factor a result's score is multiplied by. */
export function answerPrior(row: { content: string; session_id: string | null }): number {
  return row.session_id !== null && isQuestionTurn(row.content) ? QUESTION_TURN_FACTOR : 1;
}
