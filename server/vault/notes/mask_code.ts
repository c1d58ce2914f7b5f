/**
 * Markdown text with code blanked out: fenced blocks (``` and ~~~), inline code spans and the
 * front matter become spaces (newlines kept), so offsets into the result are offsets into the
 * original. Tag and link scanners run on this, which is how `#x` in code is not a tag and a
 * `[[link]]` in a code sample is neither indexed nor rewritten on rename.
 */

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

function blank(s: string): string {
  return s.replace(/[^\n]/g, " ");
}

/** Where the front matter ends (0 when there is none): just past its closing `---` or `...` line. */
export function frontMatterEnd(text: string): number {
  const first = /^---[ \t]*\r?\n/.exec(text);
  if (!first) return 0;
  const close = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;
  const rest = text.slice(first[0].length);
  const m = close.exec(rest);
  if (!m) return 0;
  return first[0].length + m.index + m[0].length;
}

function maskInline(line: string): string {
  if (!line.includes("`")) return line;
  let out = "";
  let from = 0; // start of the text not yet copied
  let i = line.indexOf("`");
  while (i !== -1) {
    let n = 0;
    while (line[i + n] === "`") n++;
    const run = "`".repeat(n);
    // The span closes at the next run of exactly n backticks.
    let j = i + n;
    let close = -1;
    while ((j = line.indexOf(run, j)) !== -1) {
      if (line[j + n] !== "`" && line[j - 1] !== "`") {
        close = j;
        break;
      }
      while (line[j] === "`") j++;
    }
    if (close === -1) {
      i = line.indexOf("`", i + n);
      continue;
    }
    out += line.slice(from, i) + " ".repeat(close + n - i);
    from = close + n;
    i = line.indexOf("`", from);
  }
  return out + line.slice(from);
}

const closers = new Map<string, RegExp>();

/** The line that closes a fence opened with `open`: the same character, at least as many. */
function closingFence(open: string): RegExp {
  let re = closers.get(open);
  if (!re) {
    re = new RegExp(`^ {0,3}${open[0] === "`" ? "`" : "~"}{${open.length},}[ \\t\\r]*$`);
    if (closers.size < 64) closers.set(open, re);
  }
  return re;
}

export function maskCode(text: string): string {
  const fm = frontMatterEnd(text);
  const lines = text.slice(fm).split("\n");
  let fence: RegExp | undefined;
  const out = lines.map((line) => {
    if (fence) {
      if (fence.test(line)) fence = undefined;
      return blank(line);
    }
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === "`" && line.slice(open[0].length).includes("`"))) {
      fence = closingFence(open[1]!);
      return blank(line);
    }
    return maskInline(line);
  });
  return blank(text.slice(0, fm)) + out.join("\n");
}
