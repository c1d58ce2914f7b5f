/**
 * Outgoing links of a note: `[[target#heading|alias]]`, embeds `![[...]]`, and relative Markdown
 * links `[text](dest)` / `![alt](dest)`. A small tokenizer over code-masked text, not a full Markdown
 * parse: offsets are kept so a rename can rewrite the link in place.
 */
import { posix } from "node:path";

interface LinkBase {
  embed: boolean;
  /** `heading` or `^block` after `#`, without the `#`. */
  subpath?: string;
  /** Offsets of the whole link in the note text. */
  start: number;
  end: number;
}

export interface WikiLink extends LinkBase {
  kind: "wiki";
  /** The target as written: `note`, `folder/note`, `note.md`, `image.png`, `` (a link to itself). */
  target: string;
  alias?: string;
}

export interface MarkdownLink extends LinkBase {
  kind: "markdown";
  /** The destination, percent-decoded, resolved against the note's folder to a vault path. */
  target: string;
  /** The destination exactly as written (between the parentheses, `<>` and fragment included). */
  dest: string;
  /** Offsets of `dest` in the note text. */
  destStart: number;
  destEnd: number;
  text: string;
}

export type NoteLink = WikiLink | MarkdownLink;

// Quantifiers are bounded (a path is at most 500 characters) so a 1 MB note of unclosed brackets
// costs milliseconds, not seconds, on every save.
const WIKI = /(!?)\[\[([^\[\]\n]{1,1024}?)\]\]/g;
// [text](dest "title"): text may hold one level of brackets; dest is <...> or has balanced parens.
const MARKDOWN =
  /(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]{0,256}\]){0,1024})\]\((\s{0,16})(<[^<>\n]{0,2048}>|(?:[^\s()<]|\([^\s()]{0,256}\)){1,2048})(?:\s{1,16}(?:"[^"\n]{0,1024}"|'[^'\n]{0,1024}'|\([^()\n]{0,1024}\)))?\s{0,16}\)/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function splitSubpath(s: string): { path: string; subpath?: string } {
  const i = s.indexOf("#");
  if (i === -1) return { path: s };
  const sub = s.slice(i + 1).trim();
  return sub ? { path: s.slice(0, i), subpath: sub } : { path: s.slice(0, i) };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Links in `masked` (the output of `maskCode` for the note) of the note at `notePath`.
 * Markdown links with a scheme (`https:`, `mailto:`), protocol-relative or fragment-only ones, and
 * relative ones that climb above the vault are not note links and are left out.
 */
export function extractLinks(masked: string, notePath: string): NoteLink[] {
  const links: NoteLink[] = [];
  for (const m of masked.matchAll(WIKI)) {
    const inner = m[2]!.replace(/\\\|/g, "|");
    const bar = inner.indexOf("|");
    const targetPart = bar === -1 ? inner : inner.slice(0, bar);
    const { path, subpath } = splitSubpath(targetPart);
    const link: WikiLink = {
      kind: "wiki",
      embed: m[1] === "!",
      target: path.trim(),
      start: m.index,
      end: m.index + m[0].length,
    };
    if (subpath) link.subpath = subpath;
    if (bar !== -1) link.alias = inner.slice(bar + 1).trim();
    links.push(link);
  }
  const dir = posix.dirname(notePath);
  for (const m of masked.matchAll(MARKDOWN)) {
    const dest = m[4]!;
    const bare = dest.startsWith("<") ? dest.slice(1, -1) : dest;
    if (!bare || SCHEME.test(bare) || bare.startsWith("#") || bare.startsWith("//")) continue;
    const { path, subpath } = splitSubpath(bare);
    const decoded = decode(path);
    const joined = decoded.startsWith("/")
      ? posix.normalize(decoded.slice(1))
      : posix.normalize(posix.join(dir, decoded));
    if (joined === ".." || joined.startsWith("../") || joined === ".") continue;
    const destStart = m.index + 1 + (m[1] ? 1 : 0) + m[2]!.length + 2 + m[3]!.length;
    const link: MarkdownLink = {
      kind: "markdown",
      embed: m[1] === "!",
      target: joined,
      dest,
      destStart,
      destEnd: destStart + dest.length,
      text: m[2]!,
      start: m.index,
      end: m.index + m[0].length,
    };
    if (subpath) link.subpath = subpath;
    links.push(link);
  }
  return links.sort((a, b) => a.start - b.start);
}
