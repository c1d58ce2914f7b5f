/** A plain-text table: left-aligned first column, right-aligned numbers. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/** ours / theirs, two decimals; "-" when either side is missing or zero. */
export function ratio(ours: number | undefined, theirs: number | undefined): string {
  if (!ours || !theirs) return "-";
  return (ours / theirs).toFixed(2);
}
