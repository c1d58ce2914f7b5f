/**
 * Prometheus text exposition, format 0.0.4: every family's `# HELP` and `# TYPE` once, followed by
 * its samples; label values and help texts escaped as the format requires.
 *
 * @example
 * const text = new PromText()
 *   .counter("memsvc_queries_total", "Search calls answered.", [{ value: 3 }])
 *   .toString();
 */

export const PROM_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Record<string, string>;

export interface PromSample {
  labels?: Labels;
  value: number;
}

export interface PromHistogram {
  labels?: Labels;
  /** Upper bounds, ascending, in the family's unit. */
  bounds: readonly number[];
  /** Cumulative counts per bound, then the +Inf bucket. */
  cumulative: readonly number[];
  sum: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label value escaping: backslash, double quote and newline. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text escaping: backslash and newline (quotes stay as they are). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function formatLabels(labels: Labels = {}): string {
  const pairs = Object.entries(labels);
  if (pairs.length === 0) return "";
  for (const [name] of pairs) {
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`invalid label name ${name}`);
  }
  return `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

export class PromText {
  readonly #lines: string[] = [];
  readonly #families = new Set<string>();

  counter(name: string, help: string, samples: PromSample[]): this {
    if (!name.endsWith("_total")) throw new Error(`counter ${name} must end in _total`);
    this.#family(name, "counter", help);
    for (const s of samples) this.#sample(name, s.labels, s.value);
    return this;
  }

  gauge(name: string, help: string, samples: PromSample[]): this {
    this.#family(name, "gauge", help);
    for (const s of samples) this.#sample(name, s.labels, s.value);
    return this;
  }

  histogram(name: string, help: string, series: PromHistogram[]): this {
    this.#family(name, "histogram", help);
    for (const h of series) {
      h.bounds.forEach((bound, i) =>
        this.#sample(`${name}_bucket`, { ...h.labels, le: formatValue(bound) }, h.cumulative[i]!)
      );
      const count = h.cumulative.at(-1) ?? 0;
      this.#sample(`${name}_bucket`, { ...h.labels, le: "+Inf" }, count);
      this.#sample(`${name}_sum`, h.labels, h.sum);
      this.#sample(`${name}_count`, h.labels, count);
    }
    return this;
  }

  toString(): string {
    return this.#lines.map((line) => `${line}\n`).join("");
  }

  #family(name: string, type: string, help: string) {
    if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    if (this.#families.has(name)) throw new Error(`metric family ${name} written twice`);
    this.#families.add(name);
    this.#lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
  }

  #sample(name: string, labels: Labels | undefined, value: number) {
    this.#lines.push(`${name}${formatLabels(labels)} ${formatValue(value)}`);
  }
}
