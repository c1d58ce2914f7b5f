/**
 * Reading container logs through the pods/log subresource, across several Pods and containers.
 * Lines are always fetched with the kubelet's timestamps, so that streams can be merged in time
 * order and a follow that loses its connection can resume where it stopped without repeating or
 * dropping lines; `--timestamps` only decides whether the timestamp is printed.
 */
import { sleep as abortableSleep } from "../async/sleep.ts";
import type { KubeClient } from "../k8s/mod.ts";
import { isKubeApiError } from "../k8s/errors.ts";
import type { LogSource } from "./proxy_pods.ts";

export interface LogLine {
  source: LogSource;
  /** The kubelet's RFC 3339 timestamp, as sent. */
  time: string;
  text: string;
}

export interface ReadOptions {
  /** Last n lines per container (`tailLines`). */
  tail?: number;
  /** Only lines at or after this time. */
  since?: Date;
  /** A container whose log the server refused (400: not started yet); the others are still read. */
  onSkip?: (source: LogSource, message: string) => void;
}

/** Splits `<RFC 3339 time> <text>` as the kubelet sends it with timestamps=true. */
export function splitTimestamp(raw: string): { time: string; text: string } {
  const space = raw.indexOf(" ");
  const time = space > 0 ? raw.slice(0, space) : "";
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(time)) return { time: "", text: raw };
  return { time, text: raw.slice(space + 1) };
}

/**
 * A sortable key of an RFC 3339 time: UTC with nine fraction digits. The kubelet trims trailing
 * zeros (RFC3339Nano), so the raw strings do not compare correctly.
 */
export function timeKey(time: string): string {
  if (!time) return "";
  const m = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (!m) return time;
  const base = m[3] === "Z" ? m[1]! : new Date(`${m[1]}${m[3]}`).toISOString().slice(0, 19);
  return `${base}.${(m[2] ?? "").padEnd(9, "0").slice(0, 9)}Z`;
}

function logPath(s: LogSource): string {
  return `/api/v1/namespaces/${encodeURIComponent(s.namespace)}/pods/${encodeURIComponent(s.pod)}/log`;
}

function logQuery(s: LogSource, options: ReadOptions & { follow?: boolean; sinceTime?: string }) {
  const sinceTime = options.sinceTime ?? (options.since ? rfc3339Seconds(options.since) : undefined);
  return {
    container: s.container,
    timestamps: true,
    ...(options.follow ? { follow: true } : {}),
    ...(options.tail !== undefined && options.tail >= 0 ? { tailLines: options.tail } : {}),
    ...(sinceTime ? { sinceTime } : {}),
  };
}

/** sinceTime has second precision on the server; rounding down never loses a line. */
function rfc3339Seconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Splits a chunked text stream into lines; a final unterminated line is kept until more arrives. */
export class LineSplitter {
  #rest = "";

  push(chunk: string): string[] {
    const parts = (this.#rest + chunk).split("\n");
    this.#rest = parts.pop()!;
    return parts.map((l) => l.replace(/\r$/, ""));
  }

  flush(): string[] {
    const rest = this.#rest;
    this.#rest = "";
    return rest ? [rest] : [];
  }
}

/** The lines of every source, merged in time order (stable for equal times). */
export async function readLogs(
  client: KubeClient,
  sources: readonly LogSource[],
  options: ReadOptions = {},
): Promise<LogLine[]> {
  const failures: unknown[] = [];
  const perSource = await Promise.all(sources.map(async (source) => {
    let body: string | undefined;
    try {
      body = await client.request<string | undefined>({
        path: logPath(source),
        query: logQuery(source, options),
      });
    } catch (err) {
      // A container that has not started (or was never run) has no log yet; the others still print.
      if (!isKubeApiError(err, "BadRequest") || sources.length === 1) throw err;
      failures.push(err);
      options.onSkip?.(source, (err as Error).message);
      return [];
    }
    const splitter = new LineSplitter();
    return [...splitter.push(body ?? ""), ...splitter.flush()].map((raw) => ({
      source,
      ...splitTimestamp(raw),
    }));
  }));
  if (failures.length === sources.length) throw failures[0];
  const since = options.since ? timeKey(options.since.toISOString()) : "";
  return perSource.flat()
    .map((line, i) => ({ line, i, key: timeKey(line.time) }))
    .filter((x) => !since || !x.key || x.key >= since)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
    .map((x) => x.line);
}

/** Opens one follow stream of raw text chunks; `sinceTime` is set when resuming. */
export type OpenStream = (
  source: LogSource,
  options: ReadOptions & { sinceTime?: string },
  signal: AbortSignal,
) => AsyncIterable<string>;

export interface FollowOptions extends ReadOptions {
  signal: AbortSignal;
  /** Called for each line as it arrives. */
  onLine: (line: LogLine) => void;
  /** Called when a stream is lost and edgectl reconnects, or a Pod is gone. */
  onNotice?: (message: string) => void;
  /** First wait before reconnecting (doubles to 8 s); default 500 ms. */
  retryMs?: number;
  /** Where lines already read end, per source (resumePoints): follow from there without repeats. */
  from?: Map<LogSource, ResumePoint>;
  /**
   * Lists the sources again every `discoverEveryMs` (default 3 s): containers of Pods created since
   * (a rollout, a new node) are followed from their first line (or --since). With it, following ends
   * only when `signal` aborts.
   */
  discover?: () => Promise<LogSource[]>;
  discoverEveryMs?: number;
  /** Called for each source followed after the start. */
  onNewSource?: (source: LogSource) => void;
}

/** The last line's time of a source and how many lines had that time. */
export interface ResumePoint {
  time: string;
  seen: number;
}

/** The resume point of each source in lines read by readLogs, for a follow that continues them. */
export function resumePoints(lines: readonly LogLine[]): Map<LogSource, ResumePoint> {
  const points = new Map<LogSource, ResumePoint & { key: string }>();
  for (const line of lines) {
    const key = timeKey(line.time);
    if (!key) continue;
    const p = points.get(line.source);
    if (p && p.key === key) p.seen++;
    else if (!p || key > p.key) points.set(line.source, { time: line.time, seen: 1, key });
  }
  return new Map([...points].map(([s, p]) => [s, { time: p.time, seen: p.seen }]));
}

export function kubeStreamOpener(client: KubeClient): OpenStream {
  return (source, options, signal) =>
    client.stream({ path: logPath(source), query: logQuery(source, { ...options, follow: true }), signal });
}

/**
 * Follows every source until `signal` aborts or every Pod is gone. When a stream ends or fails
 * (an API server restart, a dropped connection), it is reopened from the last line's time, and
 * lines already printed are skipped: those before that time, and at that time as many as were seen.
 */
export async function followLogs(
  open: OpenStream,
  sources: readonly LogSource[],
  options: FollowOptions,
): Promise<void> {
  const key = (s: LogSource) => `${s.namespace}/${s.pod}/${s.container}`;
  const known = new Set(sources.map(key));
  const running = sources.map((s) => followOne(open, s, options));
  const { discover, signal } = options;
  while (discover && !signal.aborted) {
    await abortableSleep(options.discoverEveryMs ?? 3000, signal);
    if (signal.aborted) break;
    let found: LogSource[];
    try {
      found = await discover();
    } catch (err) {
      options.onNotice?.(`cannot list the Pods again: ${(err as Error).message}`);
      continue;
    }
    for (const source of found) {
      if (known.has(key(source))) continue;
      known.add(key(source));
      options.onNewSource?.(source);
      // A new Pod's log is read from its beginning (or --since), not its last --tail lines.
      const { tail: _tail, from: _from, ...rest } = options;
      running.push(followOne(open, source, rest));
    }
  }
  await Promise.all(running);
}

async function followOne(open: OpenStream, source: LogSource, options: FollowOptions): Promise<void> {
  const { signal } = options;
  const from = options.from?.get(source);
  let lastKey = from ? timeKey(from.time) : "";
  let lastTime = from?.time ?? "";
  let seenAtLast = from?.seen ?? 0;
  let wait = options.retryMs ?? 500;
  let resumed = from !== undefined;
  while (!signal.aborted) {
    let skipAtLast = seenAtLast;
    const splitter = new LineSplitter();
    const emit = (raw: string) => {
      const line = { source, ...splitTimestamp(raw) };
      const key = timeKey(line.time);
      if (resumed && key) {
        if (key < lastKey) return;
        if (key === lastKey && skipAtLast > 0) {
          skipAtLast--;
          return;
        }
      }
      if (key && key === lastKey) seenAtLast++;
      else if (key) {
        lastKey = key;
        lastTime = line.time;
        seenAtLast = 1;
      }
      wait = options.retryMs ?? 500;
      options.onLine(line);
    };
    try {
      const stream = open(
        source,
        // Nothing seen yet: start over as asked (tail, since), nothing can repeat.
        resumed && lastTime ? { sinceTime: lastTime.replace(/\.\d+/, "") } : { ...options },
        signal,
      );
      for await (const chunk of stream) for (const raw of splitter.push(chunk)) emit(raw);
      for (const raw of splitter.flush()) emit(raw);
    } catch (err) {
      if (signal.aborted) return;
      if (isKubeApiError(err, "NotFound")) {
        options.onNotice?.(`pod/${source.pod} is gone; no more logs from it`);
        return;
      }
      if (isKubeApiError(err, "BadRequest")) throw err; // e.g. the container is not running yet
      options.onNotice?.(
        `lost the log stream of pod/${source.pod}/${source.container}: ${(err as Error).message}`,
      );
    }
    if (signal.aborted) return;
    resumed = true;
    await abortableSleep(wait, signal);
    wait = Math.min(wait * 2, 8000);
  }
}

/**
 * A line as printed: `[pod/<pod>/<container>] ` first when several containers are read (kubectl's
 * --prefix form), then the timestamp when asked for.
 */
export function formatLogLine(line: LogLine, options: { prefix: boolean; timestamps: boolean }): string {
  const prefix = options.prefix ? `[pod/${line.source.pod}/${line.source.container}] ` : "";
  const time = options.timestamps && line.time ? `${line.time} ` : "";
  return `${prefix}${time}${line.text}\n`;
}
