/**
 * How traces print: a summary row per trace (root span's operation and service, duration, span
 * count, start) and, for `trace get`, the span tree with durations, offsets and tags.
 */
import type { JaegerClient, KeyValue, Span, Trace, TraceQuery } from "./jaeger_client.ts";

export interface TraceSummary {
  traceID: string;
  operation: string;
  service: string;
  /** From the first span's start to the last span's end, µs. */
  durationMicros: number;
  spans: number;
  services: string[];
  startTime: string;
  errors: number;
}

export function serviceOf(trace: Trace, span: Span): string {
  return trace.processes[span.processID]?.serviceName ?? span.processID;
}

/** The parent span's id inside this trace (CHILD_OF first, else FOLLOWS_FROM), if any. */
function parentId(trace: Trace, span: Span, ids: Set<string>): string | undefined {
  const refs = (span.references ?? []).filter((r) => r.traceID === trace.traceID && ids.has(r.spanID));
  return (refs.find((r) => r.refType === "CHILD_OF") ?? refs[0])?.spanID;
}

/** Spans without a parent in the trace, earliest first. */
export function roots(trace: Trace): Span[] {
  const ids = new Set(trace.spans.map((s) => s.spanID));
  return trace.spans.filter((s) => !parentId(trace, s, ids)).sort(byStart);
}

const byStart = (a: Span, b: Span) => a.startTime - b.startTime || a.spanID.localeCompare(b.spanID);

function isError(span: Span): boolean {
  return (span.tags ?? []).some((t) => t.key === "error" && (t.value === true || t.value === "true")) ||
    (span.tags ?? []).some((t) => t.key === "otel.status_code" && t.value === "ERROR");
}

export function summarize(trace: Trace): TraceSummary {
  const spans = trace.spans;
  const start = Math.min(...spans.map((s) => s.startTime));
  const end = Math.max(...spans.map((s) => s.startTime + s.duration));
  const root = roots(trace)[0] ?? spans[0]!;
  return {
    traceID: trace.traceID,
    operation: root.operationName,
    service: serviceOf(trace, root),
    durationMicros: end - start,
    spans: spans.length,
    services: [...new Set(spans.map((s) => serviceOf(trace, s)))].sort(),
    startTime: new Date(start / 1000).toISOString(),
    errors: spans.filter(isError).length,
  };
}

export const SUMMARY_HEADERS = [
  "TRACE ID",
  "OPERATION",
  "SERVICE",
  "DURATION",
  "SPANS",
  "ERRORS",
  "START TIME",
];

export function summaryRow(s: TraceSummary) {
  return [s.traceID, s.operation, s.service, formatMicros(s.durationMicros), s.spans, s.errors, s.startTime];
}

/** A tag as `key=value` (strings quoted only when they contain spaces). */
function tagText(t: KeyValue): string {
  const v = String(t.value);
  return `${t.key}=${t.type === "string" && /\s/.test(v) ? JSON.stringify(v) : v}`;
}

/**
 * The span tree:
 *
 *   Trace 4bf9… (3 spans, 2 services, 45.32ms, started 2026-11-25T10:00:00.000Z)
 *   GET /checkout [frontend] 45.32ms
 *   │  http.method=GET http.status_code=200
 *   ├─ reserve [inventory] 12.10ms +1.20ms
 *   └─ charge [payments] 20.00ms +14.00ms  ✗ error
 *
 * Offsets (+…) are from the trace's start; spans with an error tag are marked.
 */
export function spanTree(trace: Trace): string {
  const s = summarize(trace);
  const start = Math.min(...trace.spans.map((sp) => sp.startTime));
  const ids = new Set(trace.spans.map((sp) => sp.spanID));
  const children = new Map<string, Span[]>();
  for (const span of trace.spans) {
    const p = parentId(trace, span, ids);
    if (p) children.set(p, [...(children.get(p) ?? []), span]);
  }
  const lines = [
    `Trace ${s.traceID} (${s.spans} spans, ${s.services.length} services, ${
      formatMicros(s.durationMicros)
    }, ` +
    `started ${s.startTime})`,
  ];
  const walk = (span: Span, head: string, rest: string) => {
    const offset = span.startTime - start;
    lines.push(
      `${head}${span.operationName} [${serviceOf(trace, span)}] ${formatMicros(span.duration)}` +
        (offset > 0 ? ` +${formatMicros(offset)}` : "") + (isError(span) ? "  ✗ error" : ""),
    );
    const kids = (children.get(span.spanID) ?? []).sort(byStart);
    const tags = (span.tags ?? []).filter((t) => !t.key.startsWith("internal.")).map(tagText);
    if (tags.length) lines.push(`${rest}${kids.length ? "│  " : "   "}${tags.join(" ")}`);
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      walk(kid, `${rest}${last ? "└─ " : "├─ "}`, `${rest}${last ? "   " : "│  "}`);
    });
  };
  for (const root of roots(trace)) walk(root, "", "");
  return lines.join("\n");
}

/** Traces of one service, or of every service merged; newest first, at most `limit`. */
export async function searchTraces(
  client: JaegerClient,
  q: Omit<TraceQuery, "service"> & { service?: string },
) {
  const services = q.service ? [q.service] : await client.services();
  const lists = await Promise.all(services.map((service) => client.findTraces({ ...q, service })));
  const seen = new Map<string, TraceSummary>();
  for (const trace of lists.flat()) {
    if (trace.spans.length && !seen.has(trace.traceID)) seen.set(trace.traceID, summarize(trace));
  }
  return [...seen.values()]
    .sort((a, b) => b.startTime.localeCompare(a.startTime) || a.traceID.localeCompare(b.traceID))
    .slice(0, q.limit);
}

/** A span of microseconds as the trace views show it: 850µs, 45.32ms, 1.25s. */
export function formatMicros(us: number): string {
  if (us < 1000) return `${Math.round(us)}µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(2)}ms`;
  return `${(us / 1_000_000).toFixed(2)}s`;
}
