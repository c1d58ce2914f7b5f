import assert from "node:assert/strict";
import { test } from "node:test";
import { markedBlocks, sectionBlocks } from "./doc_blocks.ts";

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

test("marked blocks: only those after a marker, with their expectations", () => {
  const blocks = markedBlocks(doc, "quickstart");
  assert.equal(blocks.length, 2);
  assert.deepEqual(blocks[0], { line: 3, code: "echo one\necho two", exit: 0 });
  assert.equal(blocks[1]!.exit, 1);
  assert.equal(blocks[1]!.output!.source, 'Health"Failure.*x');
  assert.ok(blocks[1]!.output!.test('Health"Failure\nx'), "dot matches newlines");
});

test("a marker without a command block after it is an error", () => {
  assert.throws(() => markedBlocks("<!-- quickstart -->\ntext\n", "quickstart"), /line 1: .*not followed/);
});

test("section blocks stop at the next heading of the same level", () => {
  assert.deepEqual(sectionBlocks(doc, "## CI recipe", "yaml"), ["a: 1\n"]);
  assert.throws(() => sectionBlocks(doc, "## Missing", "yaml"), /no heading/);
});
