/**
 * A table in the design system's style (base.css `.table`) inside a TableWrap: a header cell per
 * column, a row per item. Pages say what the columns are and what a row shows, not the markup.
 *
 * @example
 * <DataTable label="Hooks" rows={hooks} rowKey={(_, i) => i} columns={[
 *   { header: "Stage", cell: (h) => h.stage },
 *   { header: "Message", cell: (h) => h.message, class: "message" },
 * ]} />
 */
import type { ComponentChildren } from "preact";
import { TableWrap } from "./ui.tsx";

export interface Column<T> {
  header: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** The class of the column's cells (mono, message, ...). */
  class?: string;
}

export function DataTable<T>(props: {
  /** The scrolling region's name (TableWrap). */
  label: string;
  /** `false` leaves a column out (a column shown only sometimes). */
  columns: readonly (Column<T> | false)[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  /** Attributes of a row: data-* for tests and scripts, a class. */
  rowProps?: (row: T) => Record<string, string>;
  /** A class beside `table`. */
  class?: string;
  /** The table itself named by `label` (aria-label) and its header cells scope="col" (the dashboard's tables). */
  named?: boolean;
}) {
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  return (
    <TableWrap label={props.label}>
      <table
        class={props.class ? `table ${props.class}` : "table"}
        {...(props.named ? { "aria-label": props.label } : {})}
      >
        <thead>
          <tr>
            {columns.map((c, i) => <th key={i} {...(props.named ? { scope: "col" } : {})}>{c.header}</th>)}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, i) => (
            <tr key={props.rowKey(row, i)} {...props.rowProps?.(row)}>
              {columns.map((c, j) => <td key={j} class={c.class}>{c.cell(row)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
