/**
 * A client of Jaeger's query HTTP API (`/api/services`, `/api/traces`, `/api/traces/{id}`) and its
 * JSON model, decoded as Jaeger writes it: times and durations are integer microseconds, tags are
 * typed `{key, type, value}` lists, and a span's service is `processes[span.processID].serviceName`
 * (the reference read all three wrongly).
 */
import { CliError } from "../cli/mod.ts";
import { type Endpoint, EndpointClient, type ServerNames } from "./endpoint.ts";

const JAEGER: ServerNames = {
  server: "the Jaeger query service",
  response: "a Jaeger API response",
  hint: "is --trace-endpoint the Jaeger query service (port 16686)?",
};

export type TagType = "string" | "bool" | "int64" | "float64" | "binary";

export interface KeyValue {
  key: string;
  type: TagType;
  value: string | number | boolean;
}

export interface SpanReference {
  refType: "CHILD_OF" | "FOLLOWS_FROM";
  traceID: string;
  spanID: string;
}

export interface Span {
  traceID: string;
  spanID: string;
  operationName: string;
  references?: SpanReference[];
  /** Unix microseconds. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  tags?: KeyValue[];
  logs?: { timestamp: number; fields: KeyValue[] }[];
  processID: string;
  warnings?: string[] | null;
}

export interface Process {
  serviceName: string;
  tags?: KeyValue[];
}

export interface Trace {
  traceID: string;
  spans: Span[];
  processes: Record<string, Process>;
  warnings?: string[] | null;
}

interface Envelope<T> {
  data: T;
  total?: number;
  errors?: { code?: number; msg: string; traceID?: string }[] | null;
}

export const DEFAULT_TRACE_ENDPOINT = "http://localhost:16686";

export interface TraceQuery {
  service: string;
  operation?: string;
  /** Tag filters, sent as Jaeger's JSON `tags` parameter. */
  tags?: Record<string, string>;
  start: Date;
  end: Date;
  /** Microseconds. */
  minDurationUs?: number;
  maxDurationUs?: number;
  limit: number;
}

export class JaegerClient extends EndpointClient {
  constructor(endpoint: Endpoint, timeoutMs = 30_000) {
    super(endpoint, JAEGER, timeoutMs);
  }

  async services(): Promise<string[]> {
    return ((await this.#get<string[] | null>("/api/services", {})) ?? []).sort();
  }

  /** The trace with this id, or undefined when Jaeger has none. */
  async trace(id: string): Promise<Trace | undefined> {
    try {
      return (await this.#get<Trace[]>(`/api/traces/${encodeURIComponent(id)}`, {}))?.[0];
    } catch (err) {
      if (err instanceof JaegerError && err.status === 404) return undefined;
      throw err;
    }
  }

  async findTraces(q: TraceQuery): Promise<Trace[]> {
    const params: Record<string, string> = {
      service: q.service,
      start: String(q.start.getTime() * 1000),
      end: String(q.end.getTime() * 1000),
      limit: String(q.limit),
    };
    if (q.operation) params.operation = q.operation;
    if (q.tags && Object.keys(q.tags).length) params.tags = JSON.stringify(q.tags);
    if (q.minDurationUs !== undefined) params.minDuration = `${Math.round(q.minDurationUs)}us`;
    if (q.maxDurationUs !== undefined) params.maxDuration = `${Math.round(q.maxDurationUs)}us`;
    return (await this.#get<Trace[] | null>("/api/traces", params)) ?? [];
  }

  async #get<T>(path: string, params: Record<string, string>): Promise<T> {
    const query = new URLSearchParams(params).toString();
    const target = `${path}${query ? `?${query}` : ""}`;
    const answer = await this.fetchJson(target);
    const { res } = answer;
    const body = answer.body as Envelope<T>;
    const errors = body.errors ?? [];
    if (!res.ok || (errors.length && body.data === null)) {
      throw new JaegerError(res.status, errors.map((e) => e.msg).join("; ") || `HTTP ${res.status}`);
    }
    return body.data;
  }
}

export class JaegerError extends CliError {
  override name = "JaegerError";

  constructor(readonly status: number, detail: string) {
    super(`jaeger: ${detail}`);
  }
}
