/**
 * Runs the commands a doc shows, so a quick start that stops working fails a test. A doc's `sh` block
 * is split into commands (a line ending in `\` continues on the next); a command whose last line ends
 * in `# <json>` says what it prints, and `# <status>` (three digits) a status code it prints. The test
 * starts the server itself, then runs the commands in order in one bash (variables carry over), with
 * the doc's server address replaced by the test's, and checks each printed result against its comment.
 *
 * The comment may also be the line right after the command. In it, `"…"` stands for any value and
 * `"vault_…"` for any string that starts with `vault_`; keys not shown may be there too (`, …` says
 * so), and an array shows its first items.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface DocCommand {
  /** The command as the doc shows it, continuation lines included. */
  text: string;
  /** What the doc says it prints: the comment after the command, if any. */
  expect?: string;
}

/** The commands of the `index`th ```sh block (from 0) after the heading `heading` (e.g. "## memsvc"). */
export async function docCommands(markdown: string, heading: string, index = 0): Promise<DocCommand[]> {
  const text = await readFile(markdown, "utf8");
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `${markdown} has no heading '${heading}'`);
  const next = text.indexOf("\n## ", at + heading.length + 2);
  const section = text.slice(at, next < 0 ? undefined : next);
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)][index]?.[1];
  assert.ok(block, `${markdown}: no sh block ${index} under '${heading}'`);
  const commands: DocCommand[] = [];
  let lines: string[] = [];
  for (const line of block.split("\n")) {
    // `# <json>` on a line of its own, right after a command: what that command prints.
    const own = /^#\s*([{[].*|\d{3}\b.*)$/.exec(line.trim());
    const previous = commands.at(-1);
    if (lines.length === 0 && own && previous && !previous.expect) previous.expect = own[1];
    if (lines.length === 0 && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    lines.push(line);
    if (line.trimEnd().endsWith("\\")) continue;
    const last = lines.at(-1)!;
    const comment = commentOf(last);
    commands.push({
      text: [...lines.slice(0, -1), comment ? last.slice(0, comment.at).trimEnd() : last].join("\n"),
      ...(comment && { expect: comment.text }),
    });
    lines = [];
  }
  return commands;
}

/** The `# ...` comment at the end of a line, outside quotes. */
function commentOf(line: string): { at: number; text: string } | undefined {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && /\s/.test(line[i - 1] ?? " ")) return { at: i, text: line.slice(i + 1).trim() };
  }
  return undefined;
}

/**
 * Runs `commands` in order in one bash in `dir` (`set -e`: a failing command stops it), each one's
 * stdout kept apart, and returns them. `replace` rewrites the doc's server address.
 */
export async function runDocCommands(
  commands: DocCommand[],
  options: { dir: string; env: Record<string, string>; replace: [string, string] },
): Promise<string[]> {
  await mkdir(options.dir, { recursive: true });
  const script = [
    "set -eo pipefail",
    ...commands.map((c, i) =>
      `{\n${c.text.replaceAll(options.replace[0], options.replace[1])}\n} > out.${i}`
    ),
  ].join("\n");
  await writeFile(join(options.dir, "doc.sh"), `${script}\n`);
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn("bash", ["doc.sh"], {
      cwd: options.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.dir, ...options.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
  const outputs = await Promise.all(
    commands.map((_, i) => readFile(join(options.dir, `out.${i}`), "utf8").catch(() => undefined)),
  );
  const failed = outputs.findIndex((o) => o === undefined);
  assert.equal(code, 0, `the doc's commands stopped at: ${commands[failed - 1]?.text ?? "?"}\n${stderr}`);
  return outputs as string[];
}

/** Asserts that what a command printed is what its comment says. */
export function assertPrints(command: DocCommand, output: string): void {
  const expect = command.expect;
  if (!expect) return;
  const where = `${command.text}\nprinted: ${output}`;
  if (/^\d{3}\b/.test(expect)) {
    assert.equal(output.trim(), expect.slice(0, 3), where);
    return;
  }
  if (!expect.startsWith("{") && !expect.startsWith("[")) return;
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

/** The variables a doc's `export` commands set, evaluated by bash as a reader's shell would. */
export async function exportedVariables(commands: DocCommand[]): Promise<Record<string, string>> {
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
