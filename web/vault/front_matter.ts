/**
 * A note's front matter for the preview's properties: the common YAML shapes (`key: value`,
 * `key: [a, b]`, `key:` followed by `- a` lines), read leniently; anything else is shown as written.
 * The server reads front matter fully (server/vault/notes/front_matter.ts) for search and tags; the
 * page only shows it.
 */
import { frontMatterLength } from "./editor_front_matter.ts";

export type PropertyValue = string | string[];

export interface FrontMatter {
  properties: [string, PropertyValue][];
  /** The text after the front matter. */
  body: string;
}

const KEY = /^([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const ITEM = /^[ \t]+-[ \t]+(.*?)[ \t]*$|^-[ \t]+(.*?)[ \t]*$/;
const unquote = (v: string) => v.replace(/^(["'])(.*)\1$/, "$2");

export function splitFrontMatter(text: string): FrontMatter {
  const end = frontMatterLength(text);
  if (!end) return { properties: [], body: text };
  const lines = text.slice(0, end).split(/\r?\n/).slice(1, -1);
  if (lines.length && /^(---|\.\.\.)\s*$/.test(lines.at(-1)!)) lines.pop();
  const properties: [string, PropertyValue][] = [];
  for (const line of lines) {
    const key = KEY.exec(line);
    if (key) {
      const raw = key[2] ?? "";
      const list = /^\[(.*)\]$/.exec(raw);
      properties.push([
        key[1]!,
        list ? list[1]!.split(",").map((x) => unquote(x.trim())).filter(Boolean) : raw ? unquote(raw) : [],
      ]);
      continue;
    }
    const item = ITEM.exec(line);
    const last = properties.at(-1);
    if (item && last && Array.isArray(last[1])) last[1].push(unquote(item[1] ?? item[2] ?? ""));
    else if (line.trim() && !line.trim().startsWith("#") && last) {
      // A continued or nested value: kept as text.
      last[1] = `${Array.isArray(last[1]) ? last[1].join(", ") : last[1]} ${line.trim()}`.trim();
    }
  }
  return { properties, body: text.slice(end) };
}
