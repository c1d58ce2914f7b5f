/**
 * A strict checker of the Prometheus text exposition format 0.0.4, for tests. Stricter than
 * Prometheus itself where the format leaves room: every line must be `# HELP`, `# TYPE` or a
 * sample (no other comments, no blank lines), and every sample must belong to a declared family.
 *
 * @example
 * const { problems, samples } = checkExposition(await res.text());
 * assert.deepEqual(problems, []);
 */

export interface ExpositionSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The family (TYPE name) the sample belongs to. */
  family: string;
}

export interface Exposition {
  problems: string[];
  types: Map<string, string>;
  help: Map<string, string>;
  samples: ExpositionSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const FLOAT = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;
const TIMESTAMP = /^-?\d+$/;

export function checkExposition(text: string): Exposition {
  const problems: string[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: ExpositionSample[] = [];
  const finished = new Set<string>();
  const seenSeries = new Set<string>();
  let current: string | undefined;

  /** Families must be contiguous: leaving one closes it for good. */
  const enter = (family: string, line: number) => {
    if (family === current) return;
    if (finished.has(family)) {
      problems.push(`line ${line}: family ${family} appears again after other families`);
    }
    if (current) finished.add(current);
    current = family;
  };

  if (text.length > 0 && !text.endsWith("\n")) problems.push("the text does not end with a newline");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();

  for (const [i, line] of lines.entries()) {
    const n = i + 1;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) ([^ ]+) (.*)$/.exec(line);
      if (!m) {
        problems.push(`line ${n}: a comment that is neither # HELP nor # TYPE: ${line}`);
        continue;
      }
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) problems.push(`line ${n}: invalid metric name ${name}`);
      enter(name, n);
      if (samples.some((s) => s.family === name)) {
        problems.push(`line ${n}: ${kind} of ${name} after its samples`);
      }
      if (kind === "HELP") {
        if (help.has(name)) problems.push(`line ${n}: second HELP for ${name}`);
        if (/\\[^\\n]|\\$/.test(rest.replace(/\\\\/g, ""))) {
          problems.push(`line ${n}: bad escape in HELP text`);
        }
        help.set(name, rest);
      } else {
        if (types.has(name)) problems.push(`line ${n}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) problems.push(`line ${n}: unknown type ${rest}`);
        types.set(name, rest);
      }
      continue;
    }
    const parsed = parseSample(line);
    if (typeof parsed === "string") {
      problems.push(`line ${n}: ${parsed}: ${line}`);
      continue;
    }
    const family = familyOf(parsed.name, types);
    if (!family) {
      problems.push(`line ${n}: sample ${parsed.name} has no TYPE declared before it`);
      continue;
    }
    enter(family, n);
    const key = `${parsed.name}${JSON.stringify(Object.entries(parsed.labels).sort())}`;
    if (seenSeries.has(key)) problems.push(`line ${n}: duplicate series ${key}`);
    seenSeries.add(key);
    samples.push({ ...parsed, family });
  }

  for (const [family, type] of types) {
    if (type === "histogram") {
      problems.push(...checkHistogram(family, samples.filter((s) => s.family === family)));
    }
  }
  return { problems, types, help, samples };
}

/** A sample's family: its own name, or the histogram/summary whose _bucket, _sum or _count it is. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!m) return undefined;
  const type = types.get(m[1]!);
  if (type === "histogram" || (type === "summary" && m[2] !== "bucket")) return m[1];
  return undefined;
}

function parseSample(line: string): { name: string; labels: Record<string, string>; value: number } | string {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) return "not a sample (bad metric name)";
  const name = nameMatch[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i++;
    while (line[i] !== "}") {
      const labelMatch = /^[^=]*/.exec(line.slice(i))!;
      const label = labelMatch[0];
      if (!LABEL_NAME.test(label)) return `invalid label name "${label}"`;
      if (label in labels) return `label ${label} given twice`;
      i += label.length;
      if (line.slice(i, i + 2) !== '="') return `label ${label} without ="`;
      i += 2;
      let value = "";
      for (;;) {
        const c = line[i];
        if (c === undefined) return "unterminated label value";
        if (c === '"') break;
        if (c === "\\") {
          const next = line[i + 1];
          if (next === "\\") value += "\\";
          else if (next === '"') value += '"';
          else if (next === "n") value += "\n";
          else return `bad escape \\${next ?? ""} in a label value`;
          i += 2;
        } else {
          value += c;
          i++;
        }
      }
      i++;
      labels[label] = value;
      if (line[i] === ",") {
        i++;
        if (line[i] === "}") return "trailing comma in labels";
      } else if (line[i] !== "}") return "labels not separated by commas";
    }
    i++;
  }
  if (line[i] !== " ") return "no single space before the value";
  const [value, timestamp, ...extra] = line.slice(i + 1).split(" ");
  if (!value || !FLOAT.test(value)) return `invalid value "${value}"`;
  if (extra.length || (timestamp !== undefined && !TIMESTAMP.test(timestamp))) {
    return "trailing garbage after the value";
  }
  const number = value.endsWith("Inf") ? (value.startsWith("-") ? -Infinity : Infinity) : Number(value);
  return { name, labels, value: number };
}

/** Buckets ascending by le, counts cumulative, a +Inf bucket equal to _count, and a _sum, per series. */
function checkHistogram(family: string, samples: ExpositionSample[]): string[] {
  const problems: string[] = [];
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${family}_bucket`) {
      if (le === undefined) problems.push(`${family}${key}: bucket without le`);
      else if (!FLOAT.test(le)) problems.push(`${family}${key}: le="${le}" is not a number`);
      else entry.buckets.push([le === "+Inf" ? Infinity : Number(le), s.value]);
    } else if (le !== undefined) problems.push(`${s.name}${key}: le on a non-bucket sample`);
    else if (s.name === `${family}_sum`) entry.sum = s.value;
    else if (s.name === `${family}_count`) entry.count = s.value;
    else problems.push(`${s.name}: not a histogram sample of ${family}`);
  }
  for (const [key, { buckets, sum, count }] of series) {
    const where = `${family}${key}`;
    for (let i = 1; i < buckets.length; i++) {
      if (!(buckets[i]![0] > buckets[i - 1]![0])) problems.push(`${where}: le bounds not ascending`);
      if (buckets[i]![1] < buckets[i - 1]![1]) problems.push(`${where}: bucket counts not cumulative`);
    }
    const inf = buckets.at(-1);
    if (!inf || inf[0] !== Infinity) problems.push(`${where}: no +Inf bucket last`);
    if (count === undefined) problems.push(`${where}: no _count`);
    if (sum === undefined) problems.push(`${where}: no _sum`);
    if (inf && count !== undefined && inf[1] !== count) {
      problems.push(`${where}: +Inf bucket ${inf[1]} != _count ${count}`);
    }
  }
  return problems;
}
