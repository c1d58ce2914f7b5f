/** Everything the index needs from one note's Markdown. */
import { posix } from "node:path";
import { parseFrontMatter } from "./front_matter.ts";
import { extractLinks, type NoteLink } from "./links.ts";
import { maskCode } from "./mask_code.ts";
import { extractTags } from "./tags.ts";

export interface ParsedNote {
  title: string;
  frontMatter: Record<string, unknown>;
  /** Set when the front matter is not valid YAML; the rest is still parsed. */
  frontMatterError?: string;
  tags: string[];
  aliases: string[];
  links: NoteLink[];
}

export function parseNote(path: string, text: string): ParsedNote {
  const fm = parseFrontMatter(text);
  const masked = maskCode(text);
  const h1 = /^ {0,3}# +(.+?)(?:\s+#+)?\s*$/m.exec(masked);
  const fmTitle = fm.data.title;
  const title = typeof fmTitle === "string" && fmTitle.trim()
    ? fmTitle.trim()
    : h1
    ? h1[1]!.trim()
    : posix.basename(path).replace(/\.md$/i, "");
  const aliasesRaw = fm.data.aliases ?? fm.data.alias;
  const aliases = Array.isArray(aliasesRaw)
    ? aliasesRaw.filter((a): a is string => typeof a === "string")
    : typeof aliasesRaw === "string"
    ? [aliasesRaw]
    : [];
  const parsed: ParsedNote = {
    title,
    frontMatter: fm.data,
    tags: extractTags(fm.data, masked),
    aliases,
    links: extractLinks(masked, path),
  };
  if (fm.error) parsed.frontMatterError = fm.error;
  return parsed;
}
