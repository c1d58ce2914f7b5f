/**
 * `edgectl describe` output, laid out as kubectl's generic describer lays out custom resources
 * (k8s.io/kubectl/pkg/describe: genericDescriber, printUnstructuredContent, DescribeEvents): Name,
 * Namespace, Labels, Annotations, then every other field sorted by name with camelCase keys turned
 * into labels (`lastTransitionTime` → `Last Transition Time`), nested levels indented by two spaces,
 * and Events last. Columns are aligned with Go's tabwriter (minwidth 0, padding 2), as kubectl does.
 */
import { LAST_APPLIED_ANNOTATION } from "./resources.ts";
import { formatAge } from "./table.ts";
import type { KubeObject } from "../edgeproxy/resources.ts";
import { tabwrite } from "../cli/tabwriter.ts";

/** A core/v1 Event, the fields describe shows. */
export interface KubeEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string };
  reportingComponent?: string;
  reportingController?: string;
}

const MAX_ANNOTATION_LENGTH = 140;
const SKIPPED = new Set([
  ".metadata.managedFields",
  ".metadata.name",
  ".metadata.namespace",
  ".metadata.labels",
  ".metadata.annotations",
]);

/**
 * The describe text of `object`. `events` are the object's events (undefined when they could not be
 * read: the section is left out, as kubectl does); `now` is the time ages are measured from.
 */
export function describeObject(
  object: KubeObject,
  events: readonly KubeEvent[] | undefined,
  now: Date,
): string {
  const lines: string[] = [];
  const write = (level: number, line: string) => lines.push("  ".repeat(level) + line);
  write(0, `Name:\t${object.metadata?.name ?? ""}`);
  write(0, `Namespace:\t${object.metadata?.namespace ?? ""}`);
  writeLabels(write, object.metadata?.labels ?? {});
  writeAnnotations(write, object.metadata?.annotations ?? {});
  writeContent(write, 0, object as Record<string, unknown>, "");
  if (events?.length === 0) write(0, "Events:\t<none>");
  const text = tabwrite(lines.map((l) => `${l}\n`).join(""), PAD2);
  // kubectl flushes before the events table, so it is aligned on its own.
  return events?.length ? text + tabwrite(eventsTable(events, now), PAD2) : text;
}

const PAD2 = { minWidth: 0, padding: 2 };

type Write = (level: number, line: string) => void;

function writeLabels(write: Write, labels: Record<string, string>) {
  const keys = Object.keys(labels).sort(compare);
  if (keys.length === 0) return write(0, "Labels:\t<none>");
  keys.forEach((key, i) => write(0, `${i === 0 ? "Labels:" : ""}\t${key}=${labels[key]}`));
}

function writeAnnotations(write: Write, annotations: Record<string, string>) {
  // kubectl hides the last-applied annotation; it repeats the whole object.
  const keys = Object.keys(annotations).filter((k) => k !== LAST_APPLIED_ANNOTATION).sort(compare);
  if (keys.length === 0) return write(0, "Annotations:\t<none>");
  keys.forEach((key, i) => {
    const prefix = i === 0 ? "Annotations:\t" : "\t";
    const value = annotations[key]!.replace(/\n$/, "");
    if (value.length + key.length + 2 > MAX_ANNOTATION_LENGTH || value.includes("\n")) {
      write(0, `${prefix}${key}:`);
      for (const line of value.split("\n")) write(0, `\t  ${shorten(line, MAX_ANNOTATION_LENGTH - 2)}`);
    } else {
      write(0, `${prefix}${key}: ${value}`);
    }
  });
}

function shorten(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

function writeContent(write: Write, level: number, content: Record<string, unknown>, path: string) {
  for (const key of Object.keys(content).sort(compare)) {
    const value = content[key];
    const childPath = `${path}.${key}`;
    if (SKIPPED.has(childPath)) continue;
    if (isMap(value)) {
      write(level, `${smartLabel(key)}:`);
      writeContent(write, level + 1, value, childPath);
    } else if (Array.isArray(value)) {
      write(level, `${smartLabel(key)}:`);
      for (const item of value) {
        if (isMap(item)) writeContent(write, level + 1, item, childPath);
        else write(level + 1, goValue(item));
      }
    } else {
      write(level, `${smartLabel(key)}:\t${goValue(value)}`);
    }
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Go's `%v` of a decoded JSON value. */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goValue).join(" ")}]`;
  if (isMap(value)) {
    return `map[${Object.keys(value).sort(compare).map((k) => `${k}:${goValue(value[k])}`).join(" ")}]`;
  }
  return String(value);
}

/** Go's sort.Strings: byte order, not locale order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ACRONYMS = new Set(["API", "URL", "UID", "OSB", "GUID"]);

/** kubectl's smartLabelFor: `observedGeneration` → `Observed Generation`, `apiVersion` → `API Version`. */
export function smartLabel(field: string): string {
  if (/[^\p{L}-]/u.test(field)) return field;
  return camelSplit(field)
    .map((part) =>
      ACRONYMS.has(part.toUpperCase()) ? part.toUpperCase() : part[0]!.toUpperCase() + part.slice(1)
    )
    .join(" ");
}

/** github.com/fatih/camelcase Split: runs of lower, upper, digit and other characters; "PDFLoader" → PDF Loader. */
export function camelSplit(text: string): string[] {
  const classOf = (c: string) => /\p{Ll}/u.test(c) ? 1 : /\p{Lu}/u.test(c) ? 2 : /\p{Nd}/u.test(c) ? 3 : 4;
  const runs: string[][] = [];
  let last = 0;
  for (const c of text) {
    const cls = classOf(c);
    if (cls === last) runs[runs.length - 1]!.push(c);
    else runs.push([c]);
    last = cls;
  }
  for (let i = 0; i < runs.length - 1; i++) {
    if (/\p{Lu}/u.test(runs[i]![0]!) && /\p{Ll}/u.test(runs[i + 1]![0]!)) {
      runs[i + 1]!.unshift(runs[i]!.pop()!);
    }
  }
  return runs.filter((r) => r.length > 0).map((r) => r.join(""));
}

function since(timestamp: string | null | undefined, now: Date): string {
  if (!timestamp) return "<unknown>";
  return formatAge(timestamp, now);
}

/** kubectl's DescribeEvents table, oldest last-seen first. */
function eventsTable(events: readonly KubeEvent[], now: Date): string {
  const sorted = [...events].sort((a, b) => time(a.lastTimestamp) - time(b.lastTimestamp));
  const rows = sorted.map((e) => {
    const first = e.eventTime ? since(e.eventTime, now) : since(e.firstTimestamp, now);
    let interval = first;
    if (e.series) {
      interval = `${since(e.series.lastObservedTime, now)} (x${e.series.count ?? 0} over ${first})`;
    } else if ((e.count ?? 0) > 1) interval = `${since(e.lastTimestamp, now)} (x${e.count} over ${first})`;
    const source = e.source?.component || e.reportingController || "";
    return `  ${e.type ?? ""}\t${e.reason ?? ""}\t${interval}\t${source}\t${(e.message ?? "").trim()}\n`;
  });
  return "Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n" + rows.join("");
}

function time(timestamp: string | null | undefined): number {
  return timestamp ? Date.parse(timestamp) : 0;
}
