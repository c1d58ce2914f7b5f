/**
 * The agent's access log: one JSON object per line on the agent container's stdout, among its other
 * log lines, told apart by `"msg": "access"`. The format (documented in docs/edgectl.md):
 *
 *   {"time":"2026-11-25T10:00:00.123Z","level":"info","msg":"access","gateway":"shop/main",
 *    "route":"shop/web","backend":"shop/web","method":"GET","host":"shop.example.com","path":"/cart",
 *    "protocol":"HTTP/1.1","status":200,"duration_ms":12.5,"bytes_in":0,"bytes_out":512,
 *    "client":"203.0.113.9:51234","upstream":"10.0.0.7:8080","request_id":"8f0c…"}
 *
 * gateway, route and backend are `<namespace>/<name>` of the ProxyGateway, ProxyRoute and
 * ProxyBackend that handled the request; route and backend are absent when nothing matched.
 */
import { stringify as toYaml } from "yaml";
import { formatTable, type Io } from "../cli/mod.ts";

export interface AccessRecord {
  time: string;
  /** The agent's node (from the Pod the line came from). */
  node?: string;
  gateway?: string;
  route?: string;
  backend?: string;
  method?: string;
  host?: string;
  path?: string;
  protocol?: string;
  status: number;
  duration_ms?: number;
  bytes_in?: number;
  bytes_out?: number;
  client?: string;
  upstream?: string;
  request_id?: string;
}

const STRING_FIELDS = [
  "gateway",
  "route",
  "backend",
  "method",
  "host",
  "path",
  "protocol",
  "client",
  "upstream",
  "request_id",
] as const;
const NUMBER_FIELDS = ["duration_ms", "bytes_in", "bytes_out"] as const;

/**
 * The access record of a log line, or undefined for any other line (the agent's own logs, or a line
 * that is not JSON). `fallbackTime` (the kubelet's timestamp) is used when the record has no time.
 */
export function parseAccessLine(text: string, fallbackTime = "", node?: string): AccessRecord | undefined {
  if (!text.startsWith("{")) return undefined;
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (obj === null || typeof obj !== "object" || obj.msg !== "access") return undefined;
  const status = Number(obj.status);
  if (!Number.isInteger(status)) return undefined;
  const record: AccessRecord = {
    time: typeof obj.time === "string" ? obj.time : fallbackTime,
    ...(node ? { node } : {}),
    status,
  };
  for (const f of STRING_FIELDS) if (typeof obj[f] === "string") record[f] = obj[f] as string;
  for (const f of NUMBER_FIELDS) if (typeof obj[f] === "number") record[f] = obj[f] as number;
  return record;
}

export interface AccessFilter {
  /** `name` (any namespace) or `namespace/name`. */
  gateway?: string;
  route?: string;
  status?: number;
  /** Records before this time are dropped. */
  since?: Date;
}

function refMatches(ref: string | undefined, want: string): boolean {
  if (!ref) return false;
  return want.includes("/") ? ref === want : ref.slice(ref.indexOf("/") + 1) === want;
}

export function matchesFilter(r: AccessRecord, f: AccessFilter): boolean {
  if (f.gateway !== undefined && !refMatches(r.gateway, f.gateway)) return false;
  if (f.route !== undefined && !refMatches(r.route, f.route)) return false;
  if (f.status !== undefined && r.status !== f.status) return false;
  if (f.since && r.time) {
    const t = Date.parse(r.time);
    if (!Number.isNaN(t) && t < f.since.getTime()) return false;
  }
  return true;
}

export const ACCESS_HEADERS = [
  "TIME",
  "NODE",
  "GATEWAY",
  "ROUTE",
  "METHOD",
  "HOST",
  "PATH",
  "STATUS",
  "DURATION",
  "BYTES",
] as const;

export function accessRow(r: AccessRecord): (string | number | undefined)[] {
  return [
    r.time,
    r.node,
    r.gateway,
    r.route,
    r.method,
    r.host,
    r.path,
    r.status,
    r.duration_ms === undefined ? undefined : `${r.duration_ms}ms`,
    r.bytes_out,
  ];
}

/** The records read, as a table, JSON or YAML (`logs-access` without --follow). */
export function printRecords(io: Io, records: AccessRecord[], format: string) {
  if (format === "json") io.stdout.write(`${JSON.stringify({ items: records }, null, 2)}\n`);
  else if (format === "yaml") io.stdout.write(toYaml({ items: records }));
  else if (records.length === 0) io.stderr.write("No access-log records found\n");
  else io.stdout.write(formatTable(ACCESS_HEADERS, records.map(accessRow)));
}

/**
 * Prints the records read so far, then returns the printer of the records that follow. Tables keep
 * the column widths of the first batch (as `kubectl get -w` does); JSON is one object per line.
 */
export function followPrinter(io: Io, format: string, initial: AccessRecord[]): (r: AccessRecord) => void {
  if (format === "json") {
    const print = (r: AccessRecord) => io.stdout.write(`${JSON.stringify(r)}\n`);
    initial.forEach(print);
    return print;
  }
  if (format === "yaml") {
    let first = true;
    const print = (r: AccessRecord) => {
      io.stdout.write(`${first ? "" : "---\n"}${toYaml(r)}`);
      first = false;
    };
    initial.forEach(print);
    return print;
  }
  const table = formatTable(ACCESS_HEADERS, initial.map(accessRow)).split("\n");
  const header = table[0]!;
  // Column starts, from the header line, which has the first batch's widths.
  const starts = ACCESS_HEADERS.map((h) => header.indexOf(h, 0));
  io.stdout.write(table.filter((l) => l !== "").join("\n") + "\n");
  return (r) => {
    const cells = accessRow(r).map((c) => (c === undefined || c === "" ? "<none>" : String(c)));
    let line = "";
    cells.forEach((cell, i) => {
      if (i > 0) line = line.padEnd(Math.max(starts[i]!, line.length + 3));
      line += cell;
    });
    io.stdout.write(`${line}\n`);
  };
}
