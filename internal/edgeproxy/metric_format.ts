/** How metric values print in edgectl's tables: short numbers, percentages, latencies, sparklines. */

/** A number with about four significant digits: 12.35, 0.004, 1234, 1.235e+6 stays 1235000. */
export function formatNumber(v: number | undefined): string {
  if (v === undefined) return "";
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(4)));
}

/** A ratio (0..1) as a percentage with two decimals. */
export function formatPercent(ratio: number | undefined): string {
  if (ratio === undefined || Number.isNaN(ratio)) return "";
  return `${(ratio * 100).toFixed(2)}%`;
}

/** Seconds as a latency: 850µs, 45.2ms, 1.25s. */
export function formatSeconds(s: number | undefined): string {
  if (s === undefined || Number.isNaN(s)) return "";
  if (!Number.isFinite(s)) return "+Inf";
  if (s < 0.001) return `${Math.round(s * 1e6)}µs`;
  if (s < 1) return `${Number((s * 1000).toPrecision(3))}ms`;
  return `${Number(s.toPrecision(3))}s`;
}

/** Bytes per second: 512B/s, 1.5KiB/s, 3.2MiB/s. */
export function formatByteRate(v: number | undefined): string {
  if (v === undefined || Number.isNaN(v)) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? Math.round(v) : Number(v.toPrecision(3))}${units[i]}/s`;
}

const BARS = "▁▂▃▄▅▆▇█";

/**
 * A sparkline of the last `width` values, scaled between their minimum and maximum (a flat series
 * is drawn at the bottom; missing or NaN points as spaces).
 */
export function sparkline(values: readonly number[], width = 20): string {
  const shown = values.slice(-width);
  const finite = shown.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return "";
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return shown.map((v) => {
    if (!Number.isFinite(v)) return " ";
    if (max === min) return BARS[0];
    return BARS[Math.min(BARS.length - 1, Math.floor(((v - min) / (max - min)) * BARS.length))];
  }).join("");
}
