/** Front matter's extent, shared by the editor (muted, never Markdown) and the preview (properties). */

/** Where a note's front matter ends (0: it has none): `---` on the first line, up to the next `---`. */
export function frontMatterLength(text: string): number {
  const m = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text.slice(0, 64 * 1024));
  return m ? m[0].length : 0;
}
