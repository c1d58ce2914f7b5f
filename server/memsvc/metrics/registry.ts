/**
 * memsvc's live metrics, kept in process memory (they start over on restart by design; the
 * per-minute activity history is what survives, in metrics_samples):
 *
 * - counters of memory operations and of the maintenance loops;
 * - request, remember and search rates over the last 60 s;
 * - latency histograms per HTTP route pattern and per MCP tool (bounded label sets);
 * - per-user and per-API-token request counts, each an LRU map of at most 10,000 keys (tokens by
 *   hash, never plaintext);
 * - each maintenance loop's runs and last result, for deep health.
 *
 * Gauges (entries, sessions, ...) are read on demand by gauges.ts.
 */
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { ValidationError } from "../../../internal/http/mod.ts";
import { LatencyHistogram } from "../../../internal/metrics/histogram.ts";
import { LruMap } from "../../../internal/metrics/lru.ts";
import { RateWindow } from "../../../internal/metrics/rate_window.ts";

/** Every counter with its help text (also the Prometheus HELP line). */
export const COUNTERS = {
  queries: "Search calls answered (HTTP and MCP).",
  zeroHitQueries: "Search calls that returned no result.",
  degradedSearches: "Search calls answered with a failed tier (degraded: true).",
  searchErrors: "Search calls that failed with a server error.",
  keywordHits: "Search results the keyword tier contributed to.",
  vectorHits: "Search results the vector tier contributed to.",
  remembers: "Write calls answered: stored, deduplicated or rejected.",
  deduplicated: "Writes answered with an existing entry (same content, or an MCP near-duplicate).",
  rejected: "Writes refused by the worthiness gate.",
  rememberErrors: "Write calls that failed with a server error.",
  updates: "Entries updated in place.",
  forgets: "Entries forgotten.",
  promotions: "Cold entries promoted back by a search hit.",
  demotions: "Entries demoted to cold by decay.",
  decayRuns: "Decay runs (skipped runs excluded).",
  dreamMerges: "Duplicate entries merged by the dream cycle.",
  orphansReaped: "Orphaned rows removed by orphan reaping.",
  loopSkips: "Maintenance runs skipped because the loop was already running.",
} as const;

export type CounterName = keyof typeof COUNTERS;

/** Bound of the per-user and per-token maps. */
export const CALLER_MAP_CAPACITY = 10_000;
/** How many of the busiest users and tokens the JSON metrics list. */
const TOP_CALLERS = 10;

/** What a maintenance loop reports after each run (see recordLoopRun). */
export interface LoopRunReport {
  durationMs: number;
  ok: boolean;
  /** True when the run did not happen because the loop was busy (here or in another process). */
  skipped?: boolean;
  /** The run's result, shown by deep health; keep it small and free of secrets. */
  result?: unknown;
  /** Why a failed run failed. */
  error?: string;
}

export interface LoopState {
  runs: number;
  failures: number;
  skipped: number;
  lastRun: { at: string; durationMs: number; ok: boolean; result?: unknown; error?: string } | null;
  lastSkippedAt: string | null;
}

export interface RouteStats {
  latency: LatencyHistogram;
  byStatus: Map<number, number>;
}

export interface ToolStats {
  latency: LatencyHistogram;
  ok: number;
  errors: number;
}

interface CallerStats {
  userId: string;
  requests: number;
  lastSeen: number;
}

export interface SearchOutcome {
  results: number;
  degraded: boolean;
  keywordHits: number;
  vectorHits: number;
}

export type RememberOutcome = "stored" | "deduplicated" | "rejected";

export class MemsvcMetrics {
  readonly startedAt: number;
  readonly #counters = Object.fromEntries(Object.keys(COUNTERS).map((name) => [name, 0])) as Record<
    CounterName,
    number
  >;
  readonly #rates: { requests: RateWindow; remembers: RateWindow; searches: RateWindow };
  readonly #routes = new Map<string, RouteStats>();
  readonly #tools = new Map<string, ToolStats>();
  readonly #users = new LruMap<string, CallerStats>(CALLER_MAP_CAPACITY);
  readonly #tokens = new LruMap<string, CallerStats>(CALLER_MAP_CAPACITY);
  readonly #loops = new Map<string, LoopState>();

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
    this.#rates = {
      requests: new RateWindow(60, now),
      remembers: new RateWindow(60, now),
      searches: new RateWindow(60, now),
    };
  }

  count(name: CounterName, n = 1): void {
    this.#counters[name] += n;
  }

  /** One HTTP request, by route pattern (never the raw path, so label values stay few). */
  recordRequest(
    route: string,
    status: number,
    durationMs: number,
    caller?: { userId: string; tokenHash?: string },
  ): void {
    this.#rates.requests.mark();
    let stats = this.#routes.get(route);
    if (!stats) this.#routes.set(route, stats = { latency: new LatencyHistogram(), byStatus: new Map() });
    stats.latency.observe(durationMs);
    stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
    if (!caller) return;
    const at = this.now();
    const seen = (s: CallerStats) => {
      s.requests++;
      s.lastSeen = at;
    };
    seen(this.#users.upsert(caller.userId, () => ({ userId: caller.userId, requests: 0, lastSeen: at })));
    if (caller.tokenHash) {
      seen(
        this.#tokens.upsert(caller.tokenHash, () => ({ userId: caller.userId, requests: 0, lastSeen: at })),
      );
    }
  }

  /** One MCP tool call; `ok` is false for a tool error. */
  recordTool(name: string, durationMs: number, ok: boolean): void {
    let stats = this.#tools.get(name);
    if (!stats) this.#tools.set(name, stats = { latency: new LatencyHistogram(), ok: 0, errors: 0 });
    stats.latency.observe(durationMs);
    if (ok) stats.ok++;
    else stats.errors++;
  }

  recordRemember(outcome: RememberOutcome): void {
    this.#rates.remembers.mark();
    this.count("remembers");
    if (outcome !== "stored") this.count(outcome);
  }

  recordSearch(outcome: SearchOutcome): void {
    this.#rates.searches.mark();
    this.count("queries");
    if (outcome.results === 0) this.count("zeroHitQueries");
    if (outcome.degraded) this.count("degradedSearches");
    this.count("keywordHits", outcome.keywordHits);
    this.count("vectorHits", outcome.vectorHits);
  }

  /** A search or write that threw; the caller's own mistakes (4xx) are not failures of the service. */
  recordFailure(operation: "search" | "remember", err: unknown): void {
    const clientError = err instanceof ZodError || err instanceof ValidationError ||
      (err instanceof HTTPException && err.status < 500);
    if (!clientError) this.count(operation === "search" ? "searchErrors" : "rememberErrors");
  }

  /**
   * What the maintenance loops call after every run, skipped ones included. The loop name is free
   * text (it becomes a label value); runs of the loop named "decay" also count as decayRuns.
   */
  recordLoopRun(name: string, run: LoopRunReport): void {
    let state = this.#loops.get(name);
    if (!state) {
      this.#loops.set(name, state = { runs: 0, failures: 0, skipped: 0, lastRun: null, lastSkippedAt: null });
    }
    const at = new Date(this.now()).toISOString();
    if (run.skipped) {
      state.skipped++;
      state.lastSkippedAt = at;
      this.count("loopSkips");
      return;
    }
    state.runs++;
    if (!run.ok) state.failures++;
    state.lastRun = {
      at,
      durationMs: run.durationMs,
      ok: run.ok,
      ...(run.result !== undefined ? { result: run.result } : {}),
      ...(run.error !== undefined ? { error: run.error } : {}),
    };
    if (name === "decay") this.count("decayRuns");
  }

  /** Each loop that has reported, with its counts and last run (for deep health). */
  loopStatus(): Record<string, LoopState> {
    return Object.fromEntries([...this.#loops].map(([name, state]) => [name, structuredClone(state)]));
  }

  counters(): Readonly<Record<CounterName, number>> {
    return { ...this.#counters };
  }

  rates(): { requestsPerSecond: number; remembersPerSecond: number; searchesPerSecond: number } {
    const round = (r: number) => Math.round(r * 1000) / 1000;
    return {
      requestsPerSecond: round(this.#rates.requests.perSecond()),
      remembersPerSecond: round(this.#rates.remembers.perSecond()),
      searchesPerSecond: round(this.#rates.searches.perSecond()),
    };
  }

  routes(): ReadonlyMap<string, RouteStats> {
    return this.#routes;
  }

  tools(): ReadonlyMap<string, ToolStats> {
    return this.#tools;
  }

  /** The busiest users and API tokens (by hash) among those tracked, and how many are tracked. */
  topCallers() {
    const top = (map: LruMap<string, CallerStats>) =>
      [...map.entries()].sort(([, a], [, b]) => b.requests - a.requests).slice(0, TOP_CALLERS);
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      trackedUsers: this.#users.size,
      trackedTokens: this.#tokens.size,
      users: top(this.#users).map(([userId, s]) => ({
        userId,
        requests: s.requests,
        lastSeenAt: iso(s.lastSeen),
      })),
      tokens: top(this.#tokens).map(([tokenHash, s]) => ({
        tokenHash,
        userId: s.userId,
        requests: s.requests,
        lastSeenAt: iso(s.lastSeen),
      })),
    };
  }

  uptimeSeconds(): number {
    return Math.floor((this.now() - this.startedAt) / 1000);
  }
}
