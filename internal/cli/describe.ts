/**
 * The describe layout (kubectl's PrefixWriter over Go's tabwriter, k8s.io/kubectl/pkg/describe): lines
 * written at an indent level, two spaces a level, whose cells line up with the lines around them that
 * have a cell in the same column. A line without cells (a section title, a list item) ends the run.
 *
 * @example
 * const w = new DescribeWriter({ minWidth: 0, padding: 1 });
 * w.write(0, "Name:", "shop/web").write(0, "Phase:", "Healthy").write(0, "Conditions:");
 * w.write(1, "Ready=True");
 * w.toString(); // "Name:  shop/web\nPhase: Healthy\nConditions:\n  Ready=True"
 */
import { type TabwriterOptions, tabwriteRows } from "./tabwriter.ts";

/** kubectl describe's settings: minwidth 0, padding 2. */
export const DESCRIBE_LAYOUT: TabwriterOptions = { minWidth: 0, padding: 2 };

export class DescribeWriter {
  #rows: string[][] = [];
  #lines: string[] = [];

  constructor(private readonly options: TabwriterOptions = DESCRIBE_LAYOUT) {}

  /** One line at `level`: every part but the last is a cell, the last is the rest of the line. */
  write(level: number, ...parts: string[]): this {
    const [first = "", ...rest] = parts;
    this.#rows.push(["  ".repeat(level) + first, ...rest]);
    return this;
  }

  /** Aligns what was written so far on its own, as kubectl flushes its tabwriter before a section. */
  flush(): this {
    this.#lines.push(...tabwriteRows(this.#rows, this.options));
    this.#rows = [];
    return this;
  }

  /** The text: lines joined by newlines, none after the last. */
  toString(): string {
    this.flush();
    return this.#lines.join("\n");
  }
}
