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
