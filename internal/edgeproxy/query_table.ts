/**
 * A PromQL result as a table. Vectors: one column per label (the metric name first as NAME), then
 * VALUE. Matrices: the same label columns, then SAMPLES, MIN, MAX, LAST and a sparkline (TREND).
 * Scalars and strings: TIME and VALUE.
 */
import type { Cell } from "../cli/mod.ts";
import { formatNumber, sparkline } from "./metric_format.ts";
import type { Labels, QueryData } from "./prometheus_client.ts";

export function queryTable(data: QueryData): { headers: string[]; rows: Cell[][] } {
  switch (data.resultType) {
    case "scalar":
    case "string":
      return {
        headers: ["TIME", "VALUE"],
        rows: [[
          timeText(data.result[0]),
          data.resultType === "scalar" ? num(data.result[1]) : data.result[1],
        ]],
      };
    case "vector": {
      const names = labelNames(data.result.map((s) => s.metric));
      return {
        headers: [...names.map(header), "VALUE"],
        rows: data.result.map((s) => [...names.map((n) => s.metric[n]), num(s.value[1])]),
      };
    }
    case "matrix": {
      const names = labelNames(data.result.map((s) => s.metric));
      return {
        headers: [...names.map(header), "SAMPLES", "MIN", "MAX", "LAST", "TREND"],
        rows: data.result.map((s) => {
          const values = s.values.map((p) => Number(p[1]));
          const finite = values.filter((v) => Number.isFinite(v));
          return [
            ...names.map((n) => s.metric[n]),
            values.length,
            finite.length ? formatNumber(Math.min(...finite)) : "",
            finite.length ? formatNumber(Math.max(...finite)) : "",
            values.length ? formatNumber(values.at(-1)!) : "",
            sparkline(values, 30),
          ];
        }),
      };
    }
  }
}

/** Label names across series: __name__ first, then the others sorted. */
function labelNames(metrics: Labels[]): string[] {
  const all = new Set(metrics.flatMap((m) => Object.keys(m)));
  const rest = [...all].filter((n) => n !== "__name__").sort();
  return all.has("__name__") ? ["__name__", ...rest] : rest;
}

function header(label: string): string {
  return label === "__name__" ? "NAME" : label;
}

function num(text: string): string {
  return formatNumber(Number(text));
}

function timeText(t: number): string {
  return new Date(t * 1000).toISOString();
}
