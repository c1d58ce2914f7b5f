/**
 * The apps' time-series chart (memsvc's activity, edgectl's traffic): SVG lines over a time range
 * with the y axis from zero, and a hover crosshair that reads every series' value at that moment
 * (also by keyboard: focus the chart, then ← and →). No library; nothing inline the CSP forbids.
 *
 * @example
 * <LineChart title="Writes" start={t0} end={t1} series={[{ label: "remember", points: [[t0, 1], [t1, 3]] }]} />
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";

export interface ChartSeries {
  label: string;
  /** [time in ms, value], oldest first. */
  points: [number, number][];
  /** Colour 0–5 (--t0 … --t5); default the series' index. */
  tone?: number;
}

/** The drawing is as wide as its box (text stays readable on a phone), within these bounds. */
const MIN_W = 280;
const MAX_W = 1100;
const PAD = { l: 52, r: 12, t: 10, b: 22 };

const plain = (v: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(v);

/** A round number at or above `v` for the top of an axis (60, not 51.7). */
export function niceTop(v: number): number {
  if (!(v > 0)) return 1;
  const unit = 10 ** Math.floor(Math.log10(v));
  const step = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((s) => s * unit >= v)!;
  return step * unit;
}

/** Time labels that suit the span: clock times within two days, dates beyond. */
export function timeLabel(t: number, spanMs: number): string {
  const d = new Date(t);
  if (spanMs <= 2 * 86_400_000) {
    return d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  }
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** The index of the point nearest to `t` in a sorted series (binary search). */
export function nearest(points: readonly [number, number][], t: number): number {
  let lo = 0, hi = points.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]![0] < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(points[lo - 1]![0] - t) <= Math.abs(points[lo]![0] - t)) return lo - 1;
  return lo;
}

export function LineChart(props: {
  title: string;
  start: number;
  end: number;
  series: ChartSeries[];
  format?: (v: number) => string;
  height?: number;
  /** Shown instead of the legend when no series has a point. */
  empty?: string;
}) {
  const format = props.format ?? plain;
  const H = props.height ?? 170;
  const [hover, setHover] = useState<number>();
  const box = useRef<HTMLElement>(null);
  const [W, setW] = useState(720);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const fit = () => setW(Math.round(Math.min(MAX_W, Math.max(MIN_W, el.clientWidth - 24))));
    fit();
    const watch = new ResizeObserver(fit);
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  const span = Math.max(1, props.end - props.start);
  const max = Math.max(0, ...props.series.flatMap((s) => s.points.map(([, v]) => v)));
  const top = niceTop(max * 1.05);
  const x = (t: number) => PAD.l + ((t - props.start) / span) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / top) * (H - PAD.t - PAD.b);
  const ticks = [0, top / 2, top];
  const times = (W < 520 ? [0, 0.5, 1] : [0, 0.25, 0.5, 0.75, 1]).map((f) => props.start + f * span);
  const hasData = props.series.some((s) => s.points.length > 0);
  const at = hover === undefined ? undefined : Math.min(props.end, Math.max(props.start, hover));
  const values = props.series.map((s) => {
    if (at === undefined) return s.points.at(-1);
    const i = nearest(s.points, at);
    return i < 0 ? undefined : s.points[i];
  });
  const fromPointer = (e: PointerEvent) => {
    const svg = e.currentTarget as SVGSVGElement;
    const r = svg.getBoundingClientRect();
    const px = ((e.clientX - r.left) / r.width) * W;
    setHover(props.start + ((px - PAD.l) / (W - PAD.l - PAD.r)) * span);
  };
  const step = span / 60;
  return (
    <figure class="chart" data-chart={props.title} ref={box}>
      <figcaption>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        tabIndex={0}
        aria-label={`${props.title}, ${timeLabel(props.start, span)} to ${timeLabel(props.end, span)}. ${
          props.series.map((s, i) =>
            `${s.label || "(none)"}: ${values[i] ? format(values[i]![1]) : "no data"}`
          )
            .join(", ")
        }`}
        onPointerMove={fromPointer}
        onPointerDown={fromPointer}
        onPointerLeave={() => setHover(undefined)}
        onBlur={() => setHover(undefined)}
        onKeyDown={(e) => {
          if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
          e.preventDefault();
          const from = hover ?? props.end;
          setHover(from + (e.key === "ArrowLeft" ? -step : step));
        }}
      >
        {ticks.map((t, i) => (
          <g key={i}>
            <line class="grid" x1={PAD.l} x2={W - PAD.r} y1={y(t)} y2={y(t)} />
            <text class="tick" x={PAD.l - 4} y={y(t) + 4} text-anchor="end">{format(t)}</text>
          </g>
        ))}
        {times.map((t, i) => (
          <text
            key={i}
            class="tick"
            x={x(t)}
            y={H - 6}
            text-anchor={i === 0 ? "start" : i === times.length - 1 ? "end" : "middle"}
          >
            {timeLabel(t, span)}
          </text>
        ))}
        {props.series.map((s, i) => {
          const tone = (s.tone ?? i) % 6;
          const last = s.points.at(-1);
          return (
            <g key={s.label}>
              <polyline
                class={`line tone-${tone}`}
                points={s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}
              />
              {/* The latest value, visible even while a series has a single sample. */}
              {last && at === undefined && (
                <circle class={`dot tone-${tone}`} cx={x(last[0])} cy={y(last[1])} r="3" />
              )}
            </g>
          );
        })}
        {at !== undefined && hasData && (
          <g class="crosshair" data-crosshair="">
            <line x1={x(at)} x2={x(at)} y1={PAD.t} y2={H - PAD.b} />
            {values.map((p, i) =>
              p
                ? (
                  <circle
                    key={i}
                    class={`dot tone-${(props.series[i]!.tone ?? i) % 6}`}
                    cx={x(p[0])}
                    cy={y(p[1])}
                    r="4"
                  />
                )
                : null
            )}
          </g>
        )}
      </svg>
      {!hasData ? <p class="muted">{props.empty ?? "No data in this range."}</p> : (
        <>
          <p class="chart-readout muted small" aria-live="polite">
            {at === undefined
              ? "Latest values. Point at the chart, or focus it and press ← →, to read another moment."
              : `At ${new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}`}
          </p>
          <ul class="legend">
            {props.series.map((s, i) => (
              <li key={s.label} data-series={s.label}>
                <span class={`swatch tone-${(s.tone ?? i) % 6}`} aria-hidden="true" />
                {s.label || "(no route)"}{" "}
                <span class="legend-value">{values[i] ? format(values[i]![1]) : "–"}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </figure>
  );
}
