/** Go-style durations as the CRDs allow them (spec.pollInterval, spec.interval, spec.healthTimeout). */

/** `5m`, `1h30m`, `90s`, `500ms` in milliseconds; 0 for text without a duration. */
export function parseDuration(text: string): number {
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
  }
  return ms;
}

/** A Repository's spec.pollInterval and an ImagePolicy's spec.interval when unset (or unreadable). */
export const DEFAULT_INTERVAL_MS = 5 * 60_000;
