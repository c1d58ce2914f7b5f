/** An SVG line chart of several series over time (no library, nothing inline that the CSP forbids). */
import type { Series } from "./api.ts";

const W = 560;
const H = 170;
const PAD = { l: 52, r: 8, t: 8, b: 22 };

export function LineChart(
  props: { title: string; start: number; end: number; series: Series[]; format: (v: number) => string },
) {
  const max = Math.max(0, ...props.series.flatMap((s) => s.points.map(([, v]) => v)));
  const top = max > 0 ? max * 1.1 : 1;
  const span = Math.max(1, props.end - props.start);
  const x = (t: number) => PAD.l + ((t - props.start) / span) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / top) * (H - PAD.t - PAD.b);
  const ticks = [0, top / 2, top];
  const times = [0, 0.5, 1].map((f) => props.start + f * span);
  const time = (t: number) =>
    new Date(t * 1000).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return (
    <figure class="chart" data-chart={props.title}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.title}>
        {ticks.map((t, i) => (
          <g key={i}>
            <line class="grid" x1={PAD.l} x2={W - PAD.r} y1={y(t)} y2={y(t)} />
            <text class="tick" x={PAD.l - 4} y={y(t) + 4} text-anchor="end">{props.format(t)}</text>
          </g>
        ))}
        {times.map((t, i) => (
          <text
            key={i}
            class="tick"
            x={x(t)}
            y={H - 6}
            text-anchor={i === 0 ? "start" : i === 2 ? "end" : "middle"}
          >
            {time(t)}
          </text>
        ))}
        {props.series.map((s, i) => {
          const last = s.points.at(-1);
          return (
            <g key={s.label}>
              <polyline
                class={`line tone-${i % 6}`}
                points={s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}
              />
              {/* The latest value, visible even while a series has a single sample. */}
              {last && <circle class={`dot tone-${i % 6}`} cx={x(last[0])} cy={y(last[1])} r="3" />}
            </g>
          );
        })}
      </svg>
      {props.series.length === 0 ? <p class="muted">No data in this window.</p> : (
        <ul class="legend">
          {props.series.map((s, i) => {
            const last = s.points.at(-1)?.[1];
            return (
              <li key={s.label}>
                <span class={`swatch tone-${i % 6}`} />
                {s.label || "(no route)"}{" "}
                <span class="muted">{last === undefined ? "" : props.format(last)}</span>
              </li>
            );
          })}
        </ul>
      )}
    </figure>
  );
}
