import { test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter, readLines, toLine } from "./ndjson.ts";

test("a chunk may hold several frames, and a frame may span several chunks", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push('{"id":1}\n{"id":2}\n{"id"'), ['{"id":1}', '{"id":2}']);
  assert.deepEqual(splitter.push(":3"), []);
  assert.deepEqual(splitter.push("}\n"), ['{"id":3}']);
});

test("CRLF line ends and blank lines are tolerated", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push('{"a":1}\r\n\r\n  \n{"b":2}\n'), ['{"a":1}', '{"b":2}']);
});

test("a multi-byte character split between chunks is decoded whole", () => {
  const bytes = new TextEncoder().encode('{"text":"\u00e9\u2713"}\n');
  const splitter = new LineSplitter();
  const lines = [...bytes].flatMap((byte) => splitter.push(new Uint8Array([byte])));
  assert.deepEqual(lines, ['{"text":"\u00e9\u2713"}']);
});

test("a last line without a newline is still a frame when the input ends", async () => {
  async function* input() {
    yield new TextEncoder().encode('{"id":1}\n{"id":');
    yield "2}";
  }
  const lines: string[] = [];
  for await (const line of readLines(input())) lines.push(line);
  assert.deepEqual(lines, ['{"id":1}', '{"id":2}']);
});

test("toLine writes one message per line, newlines inside strings escaped", () => {
  assert.equal(toLine({ text: "a\nb" }), '{"text":"a\\nb"}\n');
});
