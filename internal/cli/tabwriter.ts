/**
 * Go's text/tabwriter, as kubectl's printers use it (flags 0, pad character space): cells end at a tab,
 * a line's text after its last tab is not aligned, and a column is as wide as its widest cell plus
 * padding (at least minWidth) over each run of consecutive lines that have a cell in that column.
 * Reproducing the algorithm, rather than approximating it, is what makes `edgectl describe` line up
 * exactly as `kubectl describe` does (e.g. `Events:` aligned with the last status lines above it).
 */
export interface TabwriterOptions {
  minWidth: number;
  padding: number;
}

/** Formats `text` (lines ending in "\n", cells separated by "\t"). */
export function tabwrite(text: string, options: TabwriterOptions): string {
  const lines = text.split("\n").map((line) => line.split("\t"));
  const trailingNewline = text.endsWith("\n");
  if (trailingNewline) lines.pop();
  return tabwriteRows(lines, options).join("\n") + (trailingNewline ? "\n" : "");
}

/**
 * Formats lines given as their parts: every part but a line's last is a cell, the last is the rest of
 * the line. Parts may hold tabs and newlines: they are never split. Returns the lines, unterminated.
 */
export function tabwriteRows(lines: readonly (readonly string[])[], options: TabwriterOptions): string[] {
  // Every cell's width, once: the blocks below read them per column, and the lines again to pad.
  const cellWidths = lines.map((cells) => cells.map(width));
  const widths: number[] = [];
  const out: string[] = [];

  const writeLines = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const cells = lines[i]!;
      let line = "";
      for (let j = 0; j < cells.length; j++) {
        line += j < widths.length ? cells[j]! + " ".repeat(widths[j]! - cellWidths[i]![j]!) : cells[j]!;
      }
      out.push(line);
    }
  };

  // Go's Writer.format: recursively find blocks of lines that have a cell in the current column.
  const format = (line0: number, line1: number) => {
    const column = widths.length;
    for (let i = line0; i < line1; i++) {
      if (column >= lines[i]!.length - 1) continue;
      writeLines(line0, i);
      line0 = i;
      let w = options.minWidth;
      for (; i < line1; i++) {
        if (column >= lines[i]!.length - 1) break;
        w = Math.max(w, cellWidths[i]![column]! + options.padding);
      }
      widths.push(w);
      format(line0, i);
      widths.pop();
      line0 = i;
    }
    writeLines(line0, line1);
  };

  format(0, lines.length);
  return out;
}

/** Width in code points, as Go counts runes. */
function width(cell: string): number {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(cell) ? cell.length : [...cell].length;
}
