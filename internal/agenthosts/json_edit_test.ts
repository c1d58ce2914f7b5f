import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseJson, removeJsonEntry, setJsonEntry } from "./json_edit.ts";
import { ConfigSyntaxError } from "./syntax_error.ts";

const place = { root: "mcpServers" };
const entry = { url: "http://127.0.0.1:7778/mcp", headers: { Authorization: "Bearer nm_x" } };

/** Adds then removes our entry; the file must come back byte for byte. */
function roundTrip(text: string, strict = false): string {
  const added = setJsonEntry(text, place, "memsvc", entry, strict);
  assert.deepEqual((parseJson(added, strict) as { mcpServers: unknown }).mcpServers, {
    ...(parseJson(text, strict) as { mcpServers?: object }).mcpServers,
    memsvc: entry,
  });
  assert.equal(removeJsonEntry(added, place, "memsvc", strict), text, `after adding:\n${added}`);
  return added;
}

describe("json_edit", () => {
  it("appends to a pretty-printed object on its own lines, in the file's indentation", () => {
    const text = '{\n    "mcpServers": {\n        "a": {\n            "command": "x"\n        }\n    }\n}\n';
    const added = roundTrip(text, true);
    assert.match(added, /\n {8}"memsvc": \{\n {12}"url": /);
    assert.ok(
      added.startsWith('{\n    "mcpServers": {\n        "a": {\n            "command": "x"\n        },\n'),
    );
  });

  it("keeps a comment at the end of the last member's line with that member", () => {
    for (
      const text of [
        '{\n  "mcpServers": {\n    "a": { "command": "x" } // the a server\n  }\n}\n',
        '{\n  "mcpServers": {\n    "a": { "command": "x" }, // trailing comma style\n  },\n}\n',
      ]
    ) {
      const added = roundTrip(text);
      assert.match(added, /"a": \{ "command": "x" \},? \/\/ .*\n {4}"memsvc"/);
    }
  });

  it("adds the container when it is missing and leaves it empty on removal", () => {
    const text = '{\n  "numStartups": 3\n}\n';
    const added = setJsonEntry(text, place, "memsvc", entry, true);
    assert.deepEqual(JSON.parse(added), { numStartups: 3, mcpServers: { memsvc: entry } });
    assert.equal(
      removeJsonEntry(added, place, "memsvc", true),
      '{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n',
    );
  });

  it("fills an empty object and empties it again", () => {
    roundTrip('{\n  "mcpServers": {}\n}\n', true);
    roundTrip('{"mcpServers": {}}', true);
  });

  it("handles one-line objects, CRLF files, tabs and a member in the middle", () => {
    roundTrip('{"mcpServers": {"a": {"command": "x"}}}');
    roundTrip('{\r\n\t"mcpServers": {\r\n\t\t"a": 1\r\n\t}\r\n}\r\n');
    const middle = '{\n  "mcpServers": {\n    "memsvc": {"url": "old"},\n    // b\n    "b": 2\n  }\n}\n';
    assert.equal(
      removeJsonEntry(middle, place, "memsvc", false),
      '{\n  "mcpServers": {\n    // b\n    "b": 2\n  }\n}\n',
    );
  });

  it("replaces an existing entry in place", () => {
    const text = '{\n  "mcpServers": {\n    "memsvc": {"url": "old"},\n    "b": 2\n  }\n}\n';
    const replaced = setJsonEntry(text, place, "memsvc", entry, true);
    assert.deepEqual(JSON.parse(replaced).mcpServers, { memsvc: entry, b: 2 });
    assert.match(replaced, /\n {4}"b": 2\n/);
  });

  it("refuses what does not parse, and comments in strict JSON", () => {
    const at = (line: number, column: number, message: RegExp, problem?: string) => (err: unknown) => {
      assert.ok(err instanceof ConfigSyntaxError);
      assert.deepEqual([err.line, err.column, err.problem], [line, column, problem]);
      assert.match(err.message, message);
      return true;
    };
    assert.throws(() => setJsonEntry('{"a": ', place, "memsvc", entry, false), at(1, 7, /value expected/));
    assert.throws(
      () => setJsonEntry('{\n  // hi\n  "a": 1\n}', place, "memsvc", entry, true),
      at(2, 3, /a comment, and strict JSON has none/, "comment"),
    );
    // JSONC takes the same comment.
    assert.deepEqual(parseJson('{\n  // hi\n  "a": 1\n}', false), { a: 1 });
    assert.throws(() => setJsonEntry('{"mcpServers": []}', place, "memsvc", entry, true), /not an object/);
    assert.throws(() => setJsonEntry("[]", place, "memsvc", entry, true), /top level/);
  });
});
