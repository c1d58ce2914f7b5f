/**
 * Tags, Obsidian's rules: `#tag` in the body (letters, digits, `_`, `-`, `/` for nesting; not only
 * digits; not in code; `# Heading` is a heading, not a tag) and `tags:` / `tag:` in the front matter.
 * Compared case-insensitively; the first spelling seen is kept.
 */
import { listField } from "./front_matter.ts";

const BODY_TAG = /(?<=^|[\s,;])#([\p{L}\p{N}\p{M}_\/-]+)/gu;

function validTag(t: string): string | undefined {
  const s = t.replace(/^#/, "").replace(/^\/+|\/+$/g, "");
  if (!s || /^[\p{N}\/]+$/u.test(s)) return undefined;
  if (!/^[\p{L}\p{N}\p{M}_\/-]+$/u.test(s)) return undefined;
  return s;
}

/** Tags of a note. `maskedBody` is the text from `maskCode`. */
export function extractTags(frontMatter: Record<string, unknown>, maskedBody: string): string[] {
  const seen = new Map<string, string>();
  const add = (t: string) => {
    const v = validTag(t);
    if (v && !seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  };
  for (const t of listField(frontMatter, "tags", "tag")) add(t);
  for (const m of maskedBody.matchAll(BODY_TAG)) add(m[1]!);
  return [...seen.values()];
}
