/**
 * Rewrites the links of one note after files moved, so they point where they pointed before:
 * links to a moved file get its new location, and when the note itself moved, its relative Markdown
 * links are re-based on its new folder. Wiki links keep their form: a bare name stays bare when the
 * new name is unique in the vault, a path stays a path; headings, aliases and `!` embeds are kept.
 * Links in code are never touched (they are not parsed).
 */
import { posix } from "node:path";
import type { MarkdownLink, NoteLink, WikiLink } from "./links.ts";
import { maskCode } from "./mask_code.ts";
import { extractLinks } from "./links.ts";
import { PathSet, resolveLink, shortestLinkText } from "./resolve_link.ts";

export interface RewriteContext {
  /** Old path -> new path of every file that moved. */
  moves: ReadonlyMap<string, string>;
  /** The vault's files before and after the move. */
  before: PathSet;
  after: PathSet;
}

function wikiText(link: WikiLink, target: string, after: PathSet): string {
  const hadPath = link.target.includes("/");
  let text = hadPath ? target.replace(/\.md$/, "") : shortestLinkText(target, after);
  if (/\.md$/i.test(link.target) && target.endsWith(".md")) text += ".md";
  if (link.subpath) text += "#" + link.subpath;
  if (link.alias !== undefined) text += "|" + link.alias;
  return (link.embed ? "!" : "") + "[[" + text + "]]";
}

function markdownDest(link: MarkdownLink, fromDir: string, target: string): string {
  let rel = posix.relative(fromDir === "." ? "" : fromDir, target);
  const wroteExt = /\.md(#|$)/i.test(link.dest.replace(/^<|>$/g, "")) || !target.endsWith(".md");
  if (!wroteExt) rel = rel.replace(/\.md$/, "");
  const fragment = link.subpath ? "#" + link.subpath : "";
  if (link.dest.startsWith("<")) return `<${rel}${fragment}>`;
  const encoded = rel.split("/").map((s) => encodeURIComponent(s).replace(/%2C/g, ",")).join("/");
  const mustEncode = /[\s()<>]/.test(rel);
  const wasEncoded = /%[0-9a-f]{2}/i.test(link.dest);
  return (mustEncode || wasEncoded ? encoded : rel) + fragment;
}

/**
 * The note's new text, or undefined when nothing changed. `oldPath` / `newPath` are where the note
 * itself was and is (the same when it did not move).
 */
export function rewriteLinks(
  text: string,
  oldPath: string,
  newPath: string,
  ctx: RewriteContext,
): string | undefined {
  const masked = maskCode(text);
  const links: NoteLink[] = extractLinks(masked, oldPath);
  // The same links read from the new location (same text, so same order and offsets).
  // (A relative link that would climb above the vault from there is no link there: matched by offset.)
  const moved = new Map(
    (newPath === oldPath ? links : extractLinks(masked, newPath)).map((l) => [l.start, l]),
  );
  const edits: { start: number; end: number; text: string }[] = [];
  const newDir = posix.dirname(newPath);
  links.forEach((link) => {
    const was = resolveLink(link, oldPath, ctx.before);
    if (!was) return;
    const now = ctx.moves.get(was) ?? was;
    if (link.kind === "wiki") {
      if (now === was || (link.target === "" && was === oldPath)) return;
      edits.push({ start: link.start, end: link.end, text: wikiText(link, now, ctx.after) });
      return;
    }
    // Unchanged when, as written, it still resolves to the same file from where the note is now.
    const here = moved.get(link.start);
    if (now === was && here && resolveLink(here, newPath, ctx.after) === now) return;
    edits.push({ start: link.destStart, end: link.destEnd, text: markdownDest(link, newDir, now) });
  });
  if (!edits.length) return undefined;
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  return out === text ? undefined : out;
}

/**
 * A canvas's text with its file nodes (and group backgrounds) pointing at moved files updated, or
 * undefined when nothing changed or the text is not a canvas. Only those fields change; the rest of
 * the document is kept as it was (re-serialised tab-indented, as Obsidian writes canvases).
 */
export function rewriteCanvasLinks(text: string, moves: ReadonlyMap<string, string>): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  const nodes = (doc as { nodes?: unknown })?.nodes;
  if (!Array.isArray(nodes)) return undefined;
  let changed = false;
  for (const node of nodes as Record<string, unknown>[]) {
    for (const key of ["file", "background"] as const) {
      const v = node?.[key];
      if (typeof v === "string" && moves.has(v)) {
        node[key] = moves.get(v);
        changed = true;
      }
    }
  }
  return changed ? JSON.stringify(doc, null, "\t") : undefined;
}
