/**
 * Three-way merge of a note changed elsewhere (the API, MCP, disk) into its open document.
 *
 * The writer changed `base` (the text last written to or read from the file) into `theirs`; the
 * editors meanwhile changed `base` into what the document holds now, not yet written back. Replacing
 * the document with `theirs` would drop the editors' unsaved edits, so only the writer's own edits
 * are applied, each at the place in the document where its base text now stands.
 */
import { diffChars } from "diff";
import type * as Y from "yjs";

/** A writer's edit on the base: replace base[start, end) by `insert`. */
interface Edit {
  start: number;
  end: number;
  insert: string;
}

/** The edits that turn `from` into `to`, in base order (common prefix and suffix skipped first). */
function editsBetween(from: string, to: string): Edit[] {
  let head = 0;
  while (head < from.length && head < to.length && from[head] === to[head]) head++;
  let tail = 0;
  while (
    tail < from.length - head && tail < to.length - head &&
    from[from.length - 1 - tail] === to[to.length - 1 - tail]
  ) tail++;
  const edits: Edit[] = [];
  let at = head;
  for (const part of diffChars(from.slice(head, from.length - tail), to.slice(head, to.length - tail))) {
    const last = edits.at(-1);
    const open = last && last.end === at ? last : undefined;
    if (part.added) {
      if (open) open.insert += part.value;
      else edits.push({ start: at, end: at, insert: part.value });
    } else if (part.removed) {
      if (open) open.end += part.value.length;
      else edits.push({ start: at, end: at + part.value.length, insert: "" });
      at += part.value.length;
    } else {
      at += part.value.length;
    }
  }
  return edits;
}

/**
 * Maps a position in `base` to the document's text, through the editors' edits. `after` puts a
 * position where the editors inserted text after that text (the start of a writer's edit), otherwise
 * before it (its end), so the editors' insertions at an edit's boundary are kept.
 */
function positionMap(base: string, ours: string): (p: number, after: boolean) => number {
  const edits = editsBetween(base, ours);
  return (p, after) => {
    let shift = 0;
    for (const e of edits) {
      if (e.start > p || (e.start === p && e.end === p && !after)) break;
      if (p < e.end) return e.start + shift + (after ? e.insert.length : 0); // inside text they removed
      shift += e.insert.length - (e.end - e.start);
    }
    return p + shift;
  };
}

/** Applies the writer's change (`base` → `theirs`) to `text`, keeping its edits since `base`. */
export function mergeInto(text: Y.Text, base: string, theirs: string): void {
  const map = positionMap(base, text.toString());
  // From the end, so the positions still to be applied do not move.
  for (const e of editsBetween(base, theirs).reverse()) {
    const start = map(e.start, true);
    applyEdit(text, start, Math.max(start, map(e.end, false)), e.insert);
  }
}

function applyEdit(text: Y.Text, start: number, end: number, insert: string): void {
  if (end > start) text.delete(start, end - start);
  if (insert) text.insert(start, insert);
}
