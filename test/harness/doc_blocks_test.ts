import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  assertBlock,
  assertPrints,
  exportedVariables,
  markedBlocks,
  runBlock,
  sectionBlocks,
  splitCommands,
} from "./doc_blocks.ts";

const doc = `# Title

<!-- quickstart -->

\`\`\`sh
echo one
echo two
\`\`\`

\`\`\`sh
echo not marked
\`\`\`

<!-- quickstart exit=1 output="Health\\"Failure.*x" -->
\`\`\`sh
false
\`\`\`

## CI recipe

\`\`\`yaml
a: 1
\`\`\`

## Next

\`\`\`yaml
b: 2
\`\`\`
`;

test("marked blocks: only those after a marker, with their expectations and commands", () => {
  const blocks = markedBlocks(doc, "quickstart");
  assert.equal(blocks.length, 2);
  assert.deepEqual(blocks[0], {
    line: 3,
    code: "echo one\necho two",
    exit: 0,
    commands: [{ text: "echo one" }, { text: "echo two" }],
  });
  assert.equal(blocks[1]!.exit, 1);
  assert.equal(blocks[1]!.output!.source, 'Health"Failure.*x');
  assert.ok(blocks[1]!.output!.test('Health"Failure\nx'), "dot matches newlines");
  assert.equal(markedBlocks(doc, "quick").length, 0, "a marker is a whole word");
});

test("a marker without a command block after it is an error", () => {
  assert.throws(() => markedBlocks("<!-- quickstart -->\ntext\n", "quickstart"), /line 1: .*not followed/);
});

test("commands: continuation lines, results stated at the end or on the next line, other comments kept", () => {
  const commands = splitCommands([
    "export A=1 B='two words'",
    'curl -s http://x/health   # {"ok":true}',
    "# a remark, not a result",
    "curl -s http://x/a \\",
    '  -d \'{"a": "# not a comment"}\'',
    '# {"id":"…"}',
    "serve &   # listens on :80",
    "curl -s -o /dev/null -w '%{http_code}' http://x/b  # 403",
  ].join("\n"));
  assert.deepEqual(commands, [
    { text: "export A=1 B='two words'" },
    { text: "curl -s http://x/health", expect: '{"ok":true}' },
    { text: 'curl -s http://x/a \\\n  -d \'{"a": "# not a comment"}\'', expect: '{"id":"…"}' },
    { text: "serve &   # listens on :80" },
    { text: "curl -s -o /dev/null -w '%{http_code}' http://x/b", expect: "403" },
  ]);
});

test("a result comment is a pattern: … for any value, `, …` for more keys, a status by its digits", () => {
  const c = (expect: string) => ({ text: "cmd", expect });
  assertPrints(c('{"id":"…","n":1, …}: then more words'), '{"id":"x1","n":1,"more":true}');
  assertPrints(c('{"key":"vault_…"}'), '{"key":"vault_abc"}');
  assertPrints(c('{"items":[{"a":1}, …]}'), '{"items":[{"a":1,"b":2},{"a":3}]}');
  assertPrints(c("403"), "403\n");
  assert.throws(() => assertPrints(c('{"n":1}'), '{"n":2}'), /\$\.n/);
  assert.throws(() => assertPrints(c('{"key":"vault_…"}'), '{"key":"nm_abc"}'), /is not vault_…/);
  assert.throws(() => assertPrints(c('{"id":"…"}'), "{}"), /\$\.id is missing/);
  assert.throws(() => assertPrints(c("201"), "200\n"));
  assert.throws(() => assertPrints(c('{"ok":true}'), undefined), /did not run/);
});

test("a block runs in one bash: variables carry over, stated results are kept apart, a failure is named", async () => {
  const dir = await mkdtemp(join(tmpdir(), "doc-blocks-"));
  try {
    const [block] = markedBlocks(
      [
        "<!-- t -->",
        "```sh",
        "X=41",
        'echo "{\\"n\\":$((X + 1))}"   # {"n":42}',
        "echo to-stderr >&2",
        "echo plain",
        "```",
      ].join("\n"),
      "t",
    );
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir };
    const run = await runBlock(block!, { cwd: dir, env });
    assert.equal(run.code, 0, run.output);
    assert.equal(run.printed[1], '{"n":42}\n');
    // stdout and stderr are two pipes: their order in the output is only kept within each.
    assert.match(run.output, /\{"n":42\}\n[\s\S]*plain/);
    assert.match(run.output, /to-stderr/);
    assertBlock(block!, run);

    const wrong = await runBlock(block!, { cwd: dir, env, replace: [["X=41", "X=1"]] });
    assert.throws(() => assertBlock(block!, wrong), /\$\.n/);

    const [failing] = markedBlocks("<!-- t exit=3 -->\n```sh\necho before\n(exit 3)\necho after\n```", "t");
    const stopped = await runBlock(failing!, { cwd: dir, env });
    assertBlock(failing!, stopped);
    assert.match(stopped.output, /before\n[\s\S]*the block stopped at: \(\s*exit 3\s*\)/);
    assert.doesNotMatch(stopped.output, /after/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("exported variables are what bash makes of the export lines", async () => {
  const env = await exportedVariables(splitCommands("export A=$((1 + 1)) B='x y'\necho ignored"));
  assert.deepEqual(env, { A: "2", B: "x y" });
});

test("section blocks stop at the next heading of the same level", () => {
  assert.deepEqual(sectionBlocks(doc, "## CI recipe", "yaml"), ["a: 1\n"]);
  assert.throws(() => sectionBlocks(doc, "## Missing", "yaml"), /no heading/);
});
