/**
 * Table fences: a code-fence renderer for a small table format, client-only.
 *
 *   ```table
 *   Name | Role | Since
 *   Ada  | lead | 2024
 *   ```
 *
 * Rows are lines, cells split by the `delimiter` setting. In the editor (`interactive` true) a cell is
 * editable: on blur the fence's source is rewritten in place through api.notes.replaceFenceAtRange with
 * the `rawRange` the renderer received; in read-only views the table is static.
 */

/** The fence's source as rows of trimmed cells. */
export function parseTable(source, delimiter = "|") {
  return source.split("\n").map((l) => l.trim()).filter((l) => l && !/^[-|:\s]+$/.test(l))
    .map((l) => l.replace(/^\||\|$/g, "").split(delimiter).map((c) => c.trim()));
}

/** Rows back to the fence's source, columns padded to line up. */
export function formatTable(rows, delimiter = "|") {
  const widths = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join(` ${delimiter} `).trimEnd()).join("\n");
}

export function activate(api) {
  return api.markdown.registerCodeFenceRenderer("table", (source, el, { interactive, rawRange }) => {
    const { delimiter = "|", header = true } = api.context.get().settings;
    const rows = parseTable(source, delimiter);
    const table = document.createElement("table");
    table.className = "plugin-table-fence";
    rows.forEach((row, r) => {
      const tr = table.insertRow();
      row.forEach((text, c) => {
        const cell = document.createElement(r === 0 && header ? "th" : "td");
        cell.textContent = text;
        if (interactive) {
          cell.contentEditable = "true";
          cell.addEventListener("blur", () => {
            if (cell.textContent === rows[r][c]) return;
            rows[r][c] = (cell.textContent ?? "").replaceAll(delimiter, "").trim();
            api.notes.replaceFenceAtRange(rawRange, formatTable(rows, delimiter));
          });
        }
        tr.appendChild(cell);
      });
    });
    el.replaceChildren(table);
  });
}
