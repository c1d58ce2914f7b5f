/**
 * kubectl's table conventions: the column layout (formatTable from internal/cli: upper-case headers,
 * left-aligned columns padded to the widest cell + 3, `<none>` for empty cells, no trailing spaces),
 * AGE as kubectl's HumanDuration, and printing the server-rendered Tables that `getTable` returns.
 */
import { type Cell, formatTable } from "../cli/printers.ts";
import type { KubeObject, MetaTable } from "./resources.ts";

export { type Cell, formatTable };

/**
 * k8s.io/apimachinery/pkg/util/duration.HumanDuration: precise for short ages ("5m30s", "3h15m"),
 * coarser as they grow ("36h", "10d", "2y30d"). Parts truncate toward zero.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(seconds / 3600);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 192) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * The AGE column: HumanDuration(now − from). `from` is a creationTimestamp (RFC 3339) or a Date;
 * a missing or unparsable timestamp prints `<unknown>` as kubectl does.
 */
export function formatAge(from: string | Date | undefined | null, now: Date = new Date()): string {
  if (from === undefined || from === null || from === "") return "<unknown>";
  const t = from instanceof Date ? from.getTime() : Date.parse(from);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now.getTime() - t);
}

export interface ServerTableOptions {
  /** Show columns with priority > 0 (`-o wide`). */
  wide?: boolean;
  /** Prepend NAMESPACE from each row's object metadata (`-A`). */
  withNamespace?: boolean;
  /** Append a LABELS column (`--show-labels`). */
  showLabels?: boolean;
}

function cellOf(v: unknown): Cell {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) return v.map(String).join(",");
  if (typeof v === "object") return JSON.stringify(v);
  return v as Cell;
}

/** Headers and rows of a server-rendered Table, ready for formatTable. */
export function serverTableRows(
  table: MetaTable,
  options: ServerTableOptions = {},
): { headers: string[]; rows: Cell[][] } {
  const cols = table.columnDefinitions
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => options.wide || !c.priority);
  const headers = cols.map(({ c }) => c.name.toUpperCase());
  const rows = table.rows.map((r) => cols.map(({ i }) => cellOf(r.cells[i])));
  if (options.withNamespace) {
    headers.unshift("NAMESPACE");
    table.rows.forEach((r, i) => rows[i]!.unshift(r.object?.metadata?.namespace ?? ""));
  }
  if (options.showLabels) {
    headers.push("LABELS");
    table.rows.forEach((r, i) => {
      const labels = Object.entries(r.object?.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`);
      rows[i]!.push(labels.join(","));
    });
  }
  return { headers, rows };
}

/** A server-rendered Table in kubectl's layout ("" when it has no rows). */
export function formatServerTable(table: MetaTable, options: ServerTableOptions = {}): string {
  if (table.rows.length === 0) return "";
  const { headers, rows } = serverTableRows(table, options);
  return formatTable(headers, rows);
}

/** kubectl's list document for -o json|yaml: `{apiVersion: v1, items, kind: List, metadata: {resourceVersion: ""}}`. */
export function listDocument(objects: readonly KubeObject[]) {
  return {
    apiVersion: "v1",
    items: objects.map(withoutManagedFields),
    kind: "List",
    metadata: { resourceVersion: "" },
  };
}

/** Objects as -o json|yaml prints them: without metadata.managedFields, as kubectl hides them by default. */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  if (!object.metadata || !("managedFields" in object.metadata)) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}
