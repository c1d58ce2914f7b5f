/**
 * The one place CLI results become text: `-o table|json|yaml`. Commands fetch data, then hand the
 * whole result to `printResult`; they never format output themselves.
 */
import { stringify as toYaml } from "yaml";
import type { Io } from "./io.ts";
import type { OutputFormat } from "./output_option.ts";
import { tabwriteRows } from "./tabwriter.ts";

export type Cell = string | number | boolean | null | undefined;

/** How a result looks as a table. */
export interface TableSpec<T> {
  /** Column headers; printed upper-case. */
  headers: readonly string[];
  /** One array of cells per row, in header order. */
  rows: (value: T) => readonly (readonly Cell[])[];
  /** Printed to stderr (stdout stays empty) when there are no rows. */
  empty?: string;
  /** Columns added after the others for -o wide: headers, and a function of each row's index. */
  wide?: { headers: readonly string[]; rows: (value: T) => readonly (readonly Cell[])[] };
}

/** A table, or for results that are not tabular (like `version`), a function returning plain text. */
export type TablePrinter<T> = TableSpec<T> | ((value: T) => string);

/**
 * Prints `value` as one document in the requested format. JSON and YAML print the value as given,
 * so a list is printed as whatever single document the caller built (e.g. `{kind: "List", items}`).
 */
export function printResult<T>(io: Io, value: T, format: OutputFormat, table: TablePrinter<T>): void {
  switch (format) {
    case "json":
      io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      return;
    case "yaml":
      io.stdout.write(toYaml(value));
      return;
    case "table":
    case "wide":
      if (typeof table === "function") {
        io.stdout.write(`${table(value)}\n`);
        return;
      }
      if (format === "wide" && table.wide) {
        const extra = table.wide.rows(value);
        const rows = table.rows(value).map((r, i) => [...r, ...(extra[i] ?? [])]);
        printTable(io, [...table.headers, ...table.wide.headers], rows, table.empty);
        return;
      }
      printTable(io, table.headers, table.rows(value), table.empty);
  }
}

/**
 * A YAML stream, one document per value, as `kubectl kustomize` prints manifests. Strings YAML 1.1
 * reads as something else (yes, on, 0755) are quoted, since kubectl and most tools read YAML 1.1.
 */
export function printYamlStream(io: Io, values: readonly unknown[]) {
  io.stdout.write(values.map((v) => toYaml(v, { version: "1.1" })).join("---\n"));
}

function printTable(io: Io, headers: readonly string[], rows: readonly (readonly Cell[])[], empty?: string) {
  if (rows.length === 0) {
    io.stderr.write(`${empty ?? "No resources found."}\n`);
    return;
  }
  io.stdout.write(formatTable(headers, rows));
}

// kubectl's tabwriter settings (cli-runtime printers/tabwriter.go): minwidth 6, padding 3.
const MIN_WIDTH = 6;
const PADDING = 3;

/**
 * Formats rows the way kubectl does (its tabwriter with minwidth 6, padding 3): upper-case headers,
 * left-aligned columns, each column as wide as its widest cell plus 3 spaces (at least 6), the last
 * column unpadded, `<none>` for empty cells.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const lines = [
    headers.map((h) => h.toUpperCase()),
    ...rows.map((row) => headers.map((_, i) => cellText(row[i]))),
  ];
  const aligned = tabwriteRows(lines, { minWidth: MIN_WIDTH, padding: PADDING });
  return aligned.map((line) => `${line.trimEnd()}\n`).join("");
}

function cellText(cell: Cell): string {
  return cell === null || cell === undefined || cell === "" ? "<none>" : String(cell);
}
