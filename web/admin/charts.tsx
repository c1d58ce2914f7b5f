/**
 * The dashboard's activity charts: per-minute buckets as series for the shared LineChart
 * (web/shared/line_chart.tsx: hover crosshair, values), over a range fitted to the activity or a
 * chosen window, and a sparkline of polled samples.
 */
import type { Bucket } from "./api.ts";
import type { ChartSeries } from "../shared/line_chart.tsx";

const MINUTE = 60_000;
/** The history the server keeps (GET /v1/me/metrics/history allows 1 to 24 hours). */
export const HISTORY_HOURS = 24;

/**
 * The range to show: the last `hours`, or with `hours` 0 the stretch that has activity, padded a
 * little and at least 30 minutes long, so a few minutes of work are not a one-pixel spike on a day.
 */
export function chartRange(buckets: readonly Bucket[], hours: number, now = Date.now()) {
  const end = Math.floor(now / MINUTE) * MINUTE;
  if (hours > 0) return { start: end - (hours * 60 - 1) * MINUTE, end };
  const oldest = end - (HISTORY_HOURS * 60 - 1) * MINUTE;
  const active = buckets
    .filter((b) => Object.values(b.counts).some((n) => n > 0))
    .map((b) => new Date(b.minute).getTime())
    .filter((t) => t >= oldest && t <= end);
  if (active.length === 0) return { start: end - 59 * MINUTE, end };
  const first = Math.min(...active);
  const pad = Math.max(5 * MINUTE, Math.round((end - first) * 0.1 / MINUTE) * MINUTE);
  return { start: Math.max(oldest, Math.min(first - pad, end - 30 * MINUTE)), end };
}

/** One zero-filled point a minute per kind over [start, end]. */
export function perMinute(
  buckets: readonly Bucket[],
  kinds: readonly string[],
  range: { start: number; end: number },
): Record<string, [number, number][]> {
  const n = Math.round((range.end - range.start) / MINUTE) + 1;
  const series: Record<string, [number, number][]> = Object.fromEntries(
    kinds.map((
      k,
    ) => [k, Array.from({ length: n }, (_, i) => [range.start + i * MINUTE, 0] as [number, number])]),
  );
  for (const b of buckets) {
    const i = Math.round((new Date(b.minute).getTime() - range.start) / MINUTE);
    if (i < 0 || i >= n) continue;
    for (const k of kinds) series[k]![i]![1] += b.counts[k] ?? 0;
  }
  return series;
}

/** Series for the LineChart, named for people. */
export function activitySeries(
  buckets: readonly Bucket[],
  kinds: readonly { kind: string; label: string }[],
  range: { start: number; end: number },
  firstTone = 0,
): ChartSeries[] {
  const points = perMinute(buckets, kinds.map((k) => k.kind), range);
  return kinds.map((k, i) => ({ label: k.label, points: points[k.kind]!, tone: firstTone + i }));
}

/** A sparkline of recent samples (e.g. requests per second, polled). */
export function Sparkline(props: { values: number[]; label: string }) {
  const W = 120;
  const H = 28;
  const max = Math.max(1e-9, ...props.values);
  const pts = props.values.map((v, i) =>
    `${((i / Math.max(1, props.values.length - 1)) * W).toFixed(1)},${
      (H - 2 - (v / max) * (H - 4)).toFixed(1)
    }`
  );
  return (
    <svg class="spark" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label}>
      <polyline class="line tone-0" fill="none" points={pts.join(" ")} />
    </svg>
  );
}

/** Which part of the 24 h history the charts show: fitted to the activity (0), or the last hours. */
export function RangePicker(props: { hours: number; onChange: (hours: number) => void }) {
  return (
    <label class="toggle">
      Show
      <select value={String(props.hours)} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        <option value="0">the active period</option>
        <option value="1">the last hour</option>
        <option value="6">the last 6 hours</option>
        <option value="24">the last 24 hours</option>
      </select>
    </label>
  );
}
