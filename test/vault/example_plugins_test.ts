/**
 * The example plugins' own logic (examples/vault-plugins): the word count skips front matter and fenced
 * code, and the table fence's source parses into rows and formats back (the text the renderer writes
 * into the note through replaceFenceAtRange when a cell is edited).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
// @ts-types="./example_plugins.d.ts"
import { countWords } from "../../examples/vault-plugins/word-count/server.js";
// @ts-types="./example_plugins.d.ts"
import { formatTable, parseTable } from "../../examples/vault-plugins/table-fence/client.js";

test("the word count skips front matter and fenced code", () => {
  assert.deepEqual(
    countWords("---\ntitle: x\n---\nOne two, three-four.\n```js\nlet a = 1\n```\nfive ünïcode 42"),
    {
      words: 6,
      characters: 73, // code points: ü and ï count once
    },
  );
  assert.equal(countWords("").words, 0);
});

test("a table fence parses to rows, skipping a separator line, and formats back lined up", () => {
  const rows = parseTable("Name | Role\n---|---\n| Ada | lead |\n\nGrace|dev");
  assert.deepEqual(rows, [["Name", "Role"], ["Ada", "lead"], ["Grace", "dev"]]);
  rows[1]![1] = "principal";
  assert.equal(formatTable(rows), "Name  | Role\nAda   | principal\nGrace | dev");
  assert.deepEqual(parseTable(formatTable(rows)), rows);
  assert.deepEqual(parseTable("a;b\nc;d", ";"), [["a", "b"], ["c", "d"]]);
});
