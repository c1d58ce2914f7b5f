/** Go-style durations as the CRDs allow them (spec.pollInterval, spec.interval, spec.healthTimeout). */
import { parseDuration as parseAnyDuration } from "../../../internal/duration/duration.ts";

/** The units of the CRDs' pattern, ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$: Go's, without ns and us. */
const UNITS = ["ms", "s", "m", "h"] as const;

/** `5m`, `1h30m`, `90s`, `500ms` in milliseconds; undefined for text that is not such a duration. */
export function parseDuration(text: string): number | undefined {
  return parseAnyDuration(text, UNITS);
}

/** A Repository's spec.pollInterval and an ImagePolicy's spec.interval when unset (or unreadable). */
export const DEFAULT_INTERVAL_MS = 5 * 60_000;
