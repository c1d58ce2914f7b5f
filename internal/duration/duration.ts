/**
 * Durations as users and manifests write them: one or more number+unit parts (`90s`, `1h30m`, `7d`,
 * `2w`, `1.5s`, `250ms`). One parser for every tool: edgectl's flags take every unit (Go's
 * time.ParseDuration has no `d` or `w`, which is why the reference's documented `--lookback 7d`
 * failed; here both work); gitsync takes only the units its CRDs' pattern allows
 * (controller/gitsync/api/duration.ts).
 */

const UNIT_MS: Record<string, number> = {
  us: 0.001,
  "µs": 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)(us|µs|ms|s|m|h|d|w)/y;

/**
 * Milliseconds in `text`, or undefined when it is not a duration (a bare number has no unit) or uses a
 * unit outside `units`.
 */
export function parseDuration(
  text: string,
  units: readonly string[] = Object.keys(UNIT_MS),
): number | undefined {
  if (!text) return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== start || !units.includes(m[2]!)) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return ms;
}

/** The units the parser accepts, for messages. */
export const DURATION_UNITS = "ms, s, m, h, d or w (e.g. 30s, 15m, 2h, 7d, 1h30m)";
