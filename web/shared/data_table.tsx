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
  /** A class beside `table`. */
  class?: string;
}) {
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  return (
    <TableWrap label={props.label}>
      <table class={props.class ? `table ${props.class}` : "table"}>
        <thead>
          <tr>
            {columns.map((c, i) => <th key={i}>{c.header}</th>)}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, i) => (
            <tr key={props.rowKey(row, i)}>
              {columns.map((c, j) => <td key={j} class={c.class}>{c.cell(row)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
