/**
 * A client of the Prometheus HTTP API (prometheus.io/docs/prometheus/latest/querying/api): instant
 * and range queries, sent as form-encoded POSTs so long PromQL never hits URL limits. A refused query
 * becomes an error carrying Prometheus's errorType (`bad_data`, `execution`, `timeout`, ...).
 */
import { CliError } from "../cli/mod.ts";
import { type Endpoint, EndpointClient, type ServerNames } from "./endpoint.ts";

const PROMETHEUS: ServerNames = {
  server: "Prometheus",
  response: "a Prometheus API response",
  hint: "is --prometheus-url the Prometheus server's address?",
};

export type Labels = Record<string, string>;
/** [unix seconds, value as Prometheus prints it]. */
export type SamplePair = [number, string];

export type QueryData =
  | { resultType: "vector"; result: { metric: Labels; value: SamplePair }[] }
  | { resultType: "matrix"; result: { metric: Labels; values: SamplePair[] }[] }
  | { resultType: "scalar"; result: SamplePair }
  | { resultType: "string"; result: SamplePair };

export interface QueryResult {
  data: QueryData;
  warnings: string[];
}

interface Envelope {
  status: "success" | "error";
  data?: QueryData;
  errorType?: string;
  error?: string;
  warnings?: string[];
}

export class PrometheusError extends CliError {
  override name = "PrometheusError";

  constructor(readonly errorType: string, readonly detail: string) {
    super(`prometheus: ${errorType}: ${detail}`);
  }
}

export const DEFAULT_PROMETHEUS_URL = "http://localhost:9090";

export class PrometheusClient extends EndpointClient {
  constructor(endpoint: Endpoint, timeoutMs = 30_000) {
    super(endpoint, PROMETHEUS, timeoutMs);
  }

  /** An instant query at `time` (default: now on the server). */
  query(query: string, time?: Date): Promise<QueryResult> {
    return this.#post("/api/v1/query", { query, ...(time ? { time: unixSeconds(time) } : {}) });
  }

  /** A range query: samples every `stepSeconds` from `start` to `end`. */
  queryRange(query: string, start: Date, end: Date, stepSeconds: number): Promise<QueryResult> {
    return this.#post("/api/v1/query_range", {
      query,
      start: unixSeconds(start),
      end: unixSeconds(end),
      step: String(stepSeconds),
    });
  }

  /**
   * Prometheus's own now (`time()`), for views whose queries must all see one instant: queries sent
   * side by side are evaluated at their own arrival, and a scrape landing between them would give, say,
   * an error ratio of one set of samples over a request rate of another.
   */
  async now(): Promise<Date> {
    const { data } = await this.query("time()");
    if (data.resultType !== "scalar") throw new CliError(`prometheus: expected a scalar from time()`);
    return new Date(Number(data.result[1]) * 1000);
  }

  /** The result's vector at `time` (default: now on the server), or an error when it is not one. */
  async vector(query: string, time?: Date): Promise<{ metric: Labels; value: number }[]> {
    const { data } = await this.query(query, time);
    if (data.resultType !== "vector") {
      throw new CliError(`prometheus: expected a vector from ${query}, got ${data.resultType}`);
    }
    return data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }));
  }

  async #post(path: string, params: Record<string, string>): Promise<QueryResult> {
    const answer = await this.fetchJson(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params),
    });
    const { res } = answer;
    const body = answer.body as Envelope;
    if (body.status !== "success" || !body.data) {
      throw new PrometheusError(body.errorType ?? `HTTP ${res.status}`, body.error ?? "query failed");
    }
    return { data: body.data, warnings: body.warnings ?? [] };
  }
}

function unixSeconds(d: Date): string {
  return (d.getTime() / 1000).toFixed(3);
}

/** A time flag: RFC 3339 or Unix seconds. */
export function parseTime(text: string): Date | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return new Date(Number(text) * 1000);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(text)) return undefined;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
