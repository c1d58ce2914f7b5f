/**
 * Edits one `[<root>.<name>]` table of a TOML config as text: adds it at the end, replaces it in place,
 * or removes it, leaving every other line as it was (TOML libraries that round-trip drop comments).
 * smol-toml parses the file before and after, and the caller compares the results.
 */
import { parse, TomlError } from "smol-toml";
import type { Entry, EntryPlace } from "./hosts.ts";
import { ConfigSyntaxError } from "./syntax_error.ts";

/** The document as plain JSON data (smol-toml gives null-prototype objects and date objects). */
export function parseToml(text: string): unknown {
  try {
    return JSON.parse(JSON.stringify(parse(text)));
  } catch (err) {
    // smol-toml's message is "Invalid TOML document: <what>" and then a code block of the lines around it.
    const what = String((err as Error).message).split("\n")[0]!.replace(/^Invalid TOML document: /, "");
    if (err instanceof TomlError) throw new ConfigSyntaxError(what, err.line, err.column);
    throw new ConfigSyntaxError(what);
  }
}

export function setTomlEntry(text: string, place: EntryPlace, name: string, entry: Entry): string {
  const lines = splitLines(text);
  const table = findTable(text, lines, place, name);
  const block = renderTable(place, name, entry);
  if (table) return joinLines([...lines.slice(0, table.start), ...block, ...lines.slice(table.end)]);
  if (text.trim() === "") return joinLines(block);
  // A blank line between the file's last line and our table.
  return `${text}${text.endsWith("\n") ? "\n" : "\n\n"}${joinLines(block)}`;
}

export function removeTomlEntry(text: string, place: EntryPlace, name: string): string {
  const lines = splitLines(text);
  const table = findTable(text, lines, place, name);
  if (!table) return text;
  let { start, end } = table;
  // Take one blank line with us, the one we put before the table when we appended it.
  if (start > 0 && lines[start - 1]!.trim() === "") start--;
  else if (end < lines.length && lines[end]!.trim() === "") end++;
  const kept = [...lines.slice(0, start), ...lines.slice(end)];
  return kept.length === 0 ? "" : joinLines(kept).slice(0, text.endsWith("\n") ? undefined : -1);
}

/** The rendered `[root.name]` table: scalars and arrays as values, objects as inline tables. */
export function renderTable(place: EntryPlace, name: string, entry: Entry): string[] {
  const header = `[${[place.root, name].map(key).join(".")}]`;
  return [header, ...Object.entries(entry).map(([k, v]) => `${key(k)} = ${value(v)}`)];
}

function key(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
}

function value(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(value).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    const pairs = Object.entries(v).map(([k, item]) => `${key(k)} = ${value(item)}`);
    return pairs.length ? `{ ${pairs.join(", ")} }` : "{}";
  }
  // JSON's string escapes are all valid in TOML basic strings; numbers and booleans read the same.
  return JSON.stringify(v);
}

/**
 * The lines of our table: its header, its keys, and any `[root.name.*]` sub-tables right after it,
 * up to the next table header. Comments and blank lines just before the next header belong to it.
 */
function findTable(
  text: string,
  lines: string[],
  place: EntryPlace,
  name: string,
): { start: number; end: number } | undefined {
  const own = (line: string) => {
    const path = headerPath(line);
    return path !== undefined && path[0] === place.root && path[1] === name;
  };
  const start = lines.findIndex(own);
  if (start < 0) {
    const parsed = parseToml(text) as Record<string, Record<string, unknown> | undefined>;
    if (parsed[place.root]?.[name] !== undefined) {
      throw new Error(
        `${place.root}.${name} is written in a form this tool does not edit; change it by hand`,
      );
    }
    return undefined;
  }
  let end = start + 1;
  while (end < lines.length && (headerPath(lines[end]!) === undefined || own(lines[end]!))) end++;
  while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
  return { start, end };
}

/** The dotted key of a `[table]` or `[[array]]` header line, or undefined for any other line. */
function headerPath(line: string): string[] | undefined {
  const m = /^\s*\[\[?([^\[\]]+)\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const parts: string[] = [];
  const segment = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/y;
  let match;
  while (segment.lastIndex < m[1]!.length && (match = segment.exec(m[1]!))) {
    const raw = match[1]!;
    parts.push(raw.startsWith('"') ? JSON.parse(raw) : raw.startsWith("'") ? raw.slice(1, -1) : raw);
  }
  return parts;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function joinLines(lines: string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}
