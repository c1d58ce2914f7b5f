/**
 * The worthiness gate: content that is too short, or conversational filler, is not durable
 * knowledge and is rejected (unless the writer passes `force`). The reason strings are contract:
 * integrations read them.
 */
import { LIMITS } from "./limits.ts";

export const TOO_SHORT = "too short — not durable knowledge";
export const FILLER = "conversational filler — not durable knowledge";

const FILLER_WORDS = [
  "thanks",
  "thank",
  "ok",
  "okay",
  "sure",
  "got it",
  "great",
  "cool",
  "yes",
  "no",
  "nope",
  "yep",
  "alright",
  "noted",
  "done",
];

/** The whole content, any case, with an optional trailing period. */
const FILLER_PATTERN = new RegExp(`^(${FILLER_WORDS.join("|")})\\.?$`, "i");

/** The rejection reason for `content`, or undefined when it may be stored. */
export function rejectionReason(content: string): string | undefined {
  const trimmed = content.trim();
  if (FILLER_PATTERN.test(trimmed)) return FILLER;
  if (trimmed.length < LIMITS.minContentChars) return TOO_SHORT;
  return undefined;
}
