/**
 * A client of Jaeger's query HTTP API (`/api/services`, `/api/traces`, `/api/traces/{id}`) and its
 * JSON model, decoded as Jaeger writes it: times and durations are integer microseconds, tags are
 * typed `{key, type, value}` lists, and a span's service is `processes[span.processID].serviceName`
 * (the reference read all three wrongly).
 */
import { CliError } from "../cli/mod.ts";
import type { Endpoint } from "./endpoint.ts";

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

export class JaegerClient {
  /** Printable: credentials are never part of it (endpoint.ts). */
  readonly baseUrl: string;
  readonly #headers: Record<string, string>;

  constructor(endpoint: Endpoint, private readonly timeoutMs = 30_000) {
    this.baseUrl = endpoint.url;
    this.#headers = endpoint.headers;
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
    const url = `${this.baseUrl}${path}${query ? `?${query}` : ""}`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { ...this.#headers, accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
      throw new CliError(`cannot reach the Jaeger query service at ${this.baseUrl}: ${cause}`);
    }
    const text = await res.text();
    let body: Envelope<T>;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliError(
        `${this.baseUrl} answered ${res.status} ${res.statusText} without a Jaeger API response; ` +
          "is --trace-endpoint the Jaeger query service (port 16686)?",
      );
    }
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
