/**
 * Runs the commands a document shows, so a quick start that stops working fails a test. One convention
 * for every doc:
 *
 * - A block a test runs is a ```sh fence right after an HTML comment `<!-- <marker> [exit=N]
 *   [output="regex"] -->` (blank lines between them allowed). `exit` is the status the block must end
 *   with (default 0); `output` a regular expression its output (stdout and stderr) must match, dot
 *   matching newlines.
 * - In a block, a command (a line ending in `\` goes on on the next) may say what it prints: a `# <json>`
 *   or `# <status>` (three digits) comment at its end, or on the line right after it. In the JSON, `"…"`
 *   stands for any value and `"vault_…"` for any string that starts with `vault_`; keys not shown may be
 *   there too (`, …` says so), and an array shows its first items.
 *
 *   <!-- quickstart exit=1 output="HealthFailure" -->
 *   ```sh
 *   gitsync approve web -n shop --yes --wait
 *   curl -s http://127.0.0.1:7778/health     # {"ok":true}
 *   ```
 *
 * A block runs in one bash (`set -eo pipefail`: a failing command stops it, and is named in the output),
 * so variables carry over from command to command; each command that states its result has its stdout
 * kept apart to be compared.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface DocCommand {
  /** The command as the doc shows it, continuation lines included, its result comment left out. */
  text: string;
  /** What the doc says it prints: the comment after the command, if any. */
  expect?: string;
}

export interface DocBlock {
  /** 1-based line of the marker, for messages. */
  line: number;
  code: string;
  exit: number;
  output?: RegExp;
  commands: DocCommand[];
}

/** The blocks marked `<!-- <marker> ... -->`, in the document's order. */
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
    const code = lines.slice(j + 1, end).join("\n");
    blocks.push({
      line: i + 1,
      code,
      exit: attrs.exit === undefined ? 0 : Number(attrs.exit),
      ...(attrs.output !== undefined ? { output: new RegExp(attrs.output, "s") } : {}),
      commands: splitCommands(code),
    });
    i = end;
  }
  return blocks;
}

/** The one block marked `<!-- <marker> -->` of a file. */
export async function markedBlock(path: string, marker: string): Promise<DocBlock> {
  const blocks = markedBlocks(await readFile(path, "utf8"), marker);
  assert.equal(blocks.length, 1, `${path}: one block marked <!-- ${marker} -->`);
  return blocks[0]!;
}

/** A block's commands, each with the result its comment states. */
export function splitCommands(code: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let lines: string[] = [];
  for (const line of code.split("\n")) {
    // `# <json>` on a line of its own, right after a command: what that command prints.
    const own = /^#\s*([{[].*|\d{3}\b.*)$/.exec(line.trim());
    const previous = commands.at(-1);
    if (lines.length === 0 && own && previous && !previous.expect) previous.expect = own[1];
    if (lines.length === 0 && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    lines.push(line);
    if (line.trimEnd().endsWith("\\")) continue;
    const last = lines.at(-1)!;
    const comment = resultComment(last);
    commands.push({
      text: [...lines.slice(0, -1), comment ? last.slice(0, comment.at).trimEnd() : last].join("\n"),
      ...(comment && { expect: comment.text }),
    });
    lines = [];
  }
  return commands;
}

/** The `# <json>` or `# <status>` comment at the end of a line, outside quotes. */
function resultComment(line: string): { at: number; text: string } | undefined {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && /\s/.test(line[i - 1] ?? " ")) {
      const text = line.slice(i + 1).trim();
      return /^([{[]|\d{3}\b)/.test(text) ? { at: i, text } : undefined;
    }
  }
  return undefined;
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

export interface BlockRun {
  /** The exit status of the block's bash. */
  code: number | null;
  /** stdout and stderr, interleaved. */
  output: string;
  /** Per command, what it printed on stdout, for those that state it (undefined if it did not run). */
  printed: (string | undefined)[];
}

export interface RunOptions {
  cwd: string;
  /** The whole environment of the bash (PATH, HOME, ...). */
  env: Record<string, string>;
  /** Text replaced in the commands before they run (a server's address, a fixed port). */
  replace?: readonly (readonly [string, string])[];
  /** Default: the block's own commands. */
  commands?: readonly DocCommand[];
  /** Process groups of the blocks run, to stop what they leave running in the background. */
  groups?: number[];
  timeoutMs?: number;
}

/**
 * Runs a block's commands in one bash in its own process group, killed after `timeoutMs`. Resolves at
 * the bash's exit, not when its pipes close: a command it started in the background may keep them open.
 */
export async function runBlock(block: DocBlock, o: RunOptions): Promise<BlockRun> {
  const commands = o.commands ?? block.commands;
  const outDir = await mkdtemp(join(tmpdir(), "doc-block-"));
  const replaced = (text: string) =>
    (o.replace ?? []).reduce((t, [from, to]) => t.replaceAll(from, to), text);
  const script = [
    "set -eo pipefail",
    `trap 'echo "the block stopped at: $BASH_COMMAND" >&2' ERR`,
    ...commands.map((c, i) => {
      if (!c.expect) return replaced(c.text);
      const file = join(outDir, String(i));
      return `{\n${replaced(c.text)}\n} > ${file}\ncat ${file}`;
    }),
  ].join("\n");
  const timeoutMs = o.timeoutMs ?? 180_000;
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child: ChildProcess = spawn("bash", ["-c", script], {
        cwd: o.cwd,
        env: o.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      o.groups?.push(child.pid!);
      let output = "";
      child.stdout!.on("data", (d) => (output += d));
      child.stderr!.on("data", (d) => (output += d));
      const drained = Promise.all([once(child.stdout!, "end"), once(child.stderr!, "end")]);
      const timer = setTimeout(() => {
        output += `\n(killed after ${timeoutMs / 1000} s)`;
        process.kill(-child.pid!, "SIGKILL");
      }, timeoutMs);
      child.on("error", reject);
      child.on("exit", (status) => {
        clearTimeout(timer);
        // What is still in the pipes, but not for longer than a second: a background process may hold them.
        const grace = new Promise((r) => setTimeout(r, 1000));
        void Promise.race([drained, grace]).then(() => resolve({ code: status, output }));
      });
    });
    const printed = await Promise.all(
      commands.map((c, i) =>
        c.expect ? readFile(join(outDir, String(i)), "utf8").catch(() => undefined) : ""
      ),
    );
    return { code, output, printed };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/**
 * Asserts what the doc says of the block: its exit status, its output, and what each command that
 * states its result printed. `explain` is added to every message (a server's log, say).
 */
export function assertBlock(
  block: DocBlock,
  run: BlockRun,
  o: { commands?: readonly DocCommand[]; explain?: string } = {},
) {
  const explain = `${run.output}${o.explain ? `\n${o.explain}` : ""}`;
  assert.equal(run.code, block.exit, `the block at line ${block.line} ended ${run.code}:\n${explain}`);
  if (block.output) assert.match(run.output, block.output, `the block at line ${block.line}:\n${explain}`);
  (o.commands ?? block.commands).forEach((c, i) => {
    if (c.expect) assertPrints(c, run.printed[i], explain);
  });
}

/** Asserts that what a command printed is what its comment says. */
export function assertPrints(command: DocCommand, output: string | undefined, explain = ""): void {
  const expect = command.expect;
  if (!expect) return;
  const where = `${command.text}\nprinted: ${output}\n${explain}`;
  assert.ok(output !== undefined, `did not run: ${where}`);
  if (/^\d{3}\b/.test(expect)) {
    assert.equal(output.trim(), expect.slice(0, 3), where);
    return;
  }
  // `, …` before a closing bracket: more keys or items, not shown.
  const pattern = JSON.parse(jsonPrefix(expect).replace(/,\s*…\s*(?=[}\]])/g, ""));
  matches(JSON.parse(output), pattern, where);
}

/** The JSON value at the start of `text` (a comment may go on after it: `{"ok":true}: then ...`). */
function jsonPrefix(text: string): string {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return text.slice(0, i + 1);
  }
  return text;
}

function matches(actual: unknown, pattern: unknown, where: string, path = "$"): void {
  if (typeof pattern === "string" && pattern.includes("…")) {
    const [head, tail] = pattern.split("…") as [string, string];
    assert.ok(
      typeof actual === "string" || head === "" && tail === "",
      `${path}: expected a string like ${pattern}\n${where}`,
    );
    if (typeof actual === "string") {
      assert.ok(
        actual.startsWith(head) && actual.endsWith(tail),
        `${path}: ${actual} is not ${pattern}\n${where}`,
      );
    }
    return;
  }
  if (Array.isArray(pattern)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array\n${where}`);
    pattern.forEach((p, i) => matches(actual[i], p, where, `${path}[${i}]`));
    return;
  }
  if (pattern !== null && typeof pattern === "object") {
    assert.ok(actual !== null && typeof actual === "object", `${path}: expected an object\n${where}`);
    for (const [key, value] of Object.entries(pattern)) {
      assert.ok(key in actual, `${path}.${key} is missing\n${where}`);
      matches((actual as Record<string, unknown>)[key], value, where, `${path}.${key}`);
    }
    return;
  }
  assert.deepEqual(actual, pattern, `${path}\n${where}`);
}

/** The variables a block's `export` commands set, evaluated by bash as a reader's shell would. */
export async function exportedVariables(commands: readonly DocCommand[]): Promise<Record<string, string>> {
  const exports = commands.filter((c) => c.text.startsWith("export "));
  const names = exports.flatMap((c) => [...c.text.matchAll(/\b([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!));
  const script = `${exports.map((c) => c.text).join("\n")}\nprintf '%s\\0' ${
    names.map((n) => `"$${n}"`).join(" ")
  }`;
  const values = await new Promise<string[]>((resolve, reject) => {
    const child = spawn("bash", ["-ec", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on(
      "close",
      (code) => (code === 0 ? resolve(out.split("\0").slice(0, -1)) : reject(new Error(script))),
    );
  });
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}
