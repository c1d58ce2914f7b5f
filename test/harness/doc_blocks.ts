/**
 * The command blocks a document marks to be run by a test, so a quick start cannot drift from the product:
 * a ```sh fence right after an HTML comment `<!-- <marker> [exit=N] [output="regex"] -->` (blank lines
 * between them allowed). `exit` is the status the block must end with (default 0); `output` a regular
 * expression its output must match (dot matches newlines).
 *
 *   <!-- quickstart exit=1 output="HealthFailure" -->
 *   ```sh
 *   gitsync approve web -n shop --yes --wait
 *   ```
 */

export interface DocBlock {
  /** 1-based line of the marker, for messages. */
  line: number;
  code: string;
  exit: number;
  output?: RegExp;
}

export function markedBlocks(markdown: string, marker: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  const comment = new RegExp(`^<!--\\s*${marker}(\\s[^>]*)?-->\\s*$`);
  for (let i = 0; i < lines.length; i++) {
    const m = comment.exec(lines[i]!.trim());
    if (!m) continue;
    const attrs: Record<string, string> = {};
    for (const a of (m[1] ?? "").matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g)) {
      attrs[a[1]!] = a[2] !== undefined ? a[2].replace(/\\"/g, '"') : a[3]!;
    }
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === "") j++;
    if (!/^```(sh|bash|shell)\s*$/.test(lines[j] ?? "")) {
      throw new Error(`line ${i + 1}: ${marker} marker not followed by a \`\`\`sh block`);
    }
    const end = lines.indexOf("```", j + 1);
    if (end < 0) throw new Error(`line ${j + 1}: unterminated code block`);
    blocks.push({
      line: i + 1,
      code: lines.slice(j + 1, end).join("\n"),
      exit: attrs.exit === undefined ? 0 : Number(attrs.exit),
      ...(attrs.output !== undefined ? { output: new RegExp(attrs.output, "s") } : {}),
    });
    i = end;
  }
  return blocks;
}

/** The fenced blocks of one language under a heading (`## CI recipe`), up to the next heading of that level. */
export function sectionBlocks(markdown: string, heading: string, language: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = heading.match(/^#+/)![0];
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^${level} `, "m"));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```$", "gm"))].map((m) =>
    m[1]!
  );
}
