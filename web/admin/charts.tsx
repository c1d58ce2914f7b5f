/**
 * A small SVG time-series chart (no library): one or more series over per-minute buckets, with
 * the y axis from zero, a few labelled ticks and a text summary for screen readers.
 */
import type { Bucket } from "./api.ts";

export interface Series {
  name: string;
  values: number[];
  tone: number;
}

/** Per-minute buckets over the last `hours`, zero-filled, one array per kind. */
export function perMinute(buckets: Bucket[], kinds: string[], hours: number, now = Date.now()) {
  const end = Math.floor(now / 60_000) * 60_000;
  const start = end - (hours * 60 - 1) * 60_000;
  const n = hours * 60;
  const series: Record<string, number[]> = Object.fromEntries(kinds.map((k) => [k, new Array(n).fill(0)]));
  for (const b of buckets) {
    const i = Math.round((new Date(b.minute).getTime() - start) / 60_000);
    if (i < 0 || i >= n) continue;
    for (const k of kinds) series[k]![i] = (series[k]![i] ?? 0) + (b.counts[k] ?? 0);
  }
  return { start, series };
}

export function TimeChart(props: { title: string; start: number; series: Series[]; height?: number }) {
  const W = 720;
  const H = props.height ?? 160;
  const pad = { l: 36, r: 8, t: 8, b: 20 };
  const n = Math.max(1, ...props.series.map((s) => s.values.length));
  const max = Math.max(1, ...props.series.flatMap((s) => s.values));
  const x = (i: number) => pad.l + (i / Math.max(1, n - 1)) * (W - pad.l - pad.r);
  const y = (v: number) => H - pad.b - (v / max) * (H - pad.t - pad.b);
  // A set: with max 1 the middle tick would repeat the top one.
  const ticks = [...new Set([0, Math.round(max / 2), max])];
  const hours = n / 60;
  const labels = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const i = Math.round(f * (n - 1));
    const t = new Date(props.start + i * 60_000);
    return { i, text: t.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }) };
  });
  const total = (s: Series) => s.values.reduce((a, b) => a + b, 0);
  const summary = props.series.map((s) => `${s.name}: ${total(s)}`).join(", ");
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${props.title}, last ${hours} hours. Totals: ${summary}`}
      >
        {ticks.map((t) => (
          <g key={t}>
            <line class="grid" x1={pad.l} x2={W - pad.r} y1={y(t)} y2={y(t)} />
            <text class="tick" x={pad.l - 4} y={y(t) + 4} text-anchor="end">{t}</text>
          </g>
        ))}
        {labels.map((l) => (
          <text key={l.i} class="tick" x={x(l.i)} y={H - 4} text-anchor="middle">{l.text}</text>
        ))}
        {props.series.map((s) => (
          <polyline
            key={s.name}
            class={`line tone-${s.tone}`}
            fill="none"
            points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}
          />
        ))}
      </svg>
      <ul class="legend">
        {props.series.map((s) => (
          <li key={s.name}>
            <span class={`swatch tone-${s.tone}`} aria-hidden="true" />
            {s.name} <span class="muted">({total(s)})</span>
          </li>
        ))}
      </ul>
    </figure>
  );
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

/** Which part of the 24 h history the charts show. */
export function RangePicker(props: { hours: number; onChange: (hours: number) => void }) {
  return (
    <label class="toggle">
      Show the last
      <select value={String(props.hours)} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        <option value="1">hour</option>
        <option value="6">6 hours</option>
        <option value="24">24 hours</option>
      </select>
    </label>
  );
}
