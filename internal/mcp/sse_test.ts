import { test } from "node:test";
import assert from "node:assert/strict";
import { readSse, type SseEvent, SseParser } from "./sse.ts";

/** Feeds `chunks` one by one, as a network would deliver them. */
function parse(chunks: string[], parser = new SseParser()): SseEvent[] {
  return chunks.flatMap((chunk) => parser.push(chunk));
}

test("an event ends at a blank line; the single space after the colon is not part of the value", () => {
  assert.deepEqual(parse(['event: message\ndata: {"a":1}\n\n']), [
    { type: "message", data: '{"a":1}', id: undefined },
  ]);
  assert.deepEqual(parse(["data:  two spaces\n\n"]), [{
    type: "message",
    data: " two spaces",
    id: undefined,
  }]);
});

test("several data lines are joined with newlines", () => {
  assert.deepEqual(parse(['data: {\ndata: "a": 1\ndata: }\n\n']), [
    { type: "message", data: '{\n"a": 1\n}', id: undefined },
  ]);
});

test("ids persist across events and are what Last-Event-ID resumes from", () => {
  const parser = new SseParser();
  const events = parse(["id: 7\ndata: a\n\n", "data: b\n\n", "id: 9\ndata: c\n\n"], parser);
  assert.deepEqual(events.map((e) => [e.data, e.id]), [["a", "7"], ["b", "7"], ["c", "9"]]);
  assert.equal(parser.lastEventId, "9");
  // A resumed stream starts from the id of the previous connection.
  assert.equal(new SseParser("9").push("data: d\n\n")[0]!.id, "9");
});

test("an event without data (a priming event) dispatches nothing but records its id and retry", () => {
  const parser = new SseParser();
  assert.deepEqual(parse(["id: p1\nretry: 2500\n\n"], parser), []);
  assert.equal(parser.lastEventId, "p1");
  assert.equal(parser.retryMs, 2500);
  // `data:` with an empty value is an event with empty data.
  assert.deepEqual(parse(["id: p2\ndata: \n\n"]), [{ type: "message", data: "", id: "p2" }]);
});

test("comments (keep-alives) and unknown fields are ignored", () => {
  assert.deepEqual(parse([": keepalive\n\n", "foo: bar\n: ping\ndata: x\n\n"]), [
    { type: "message", data: "x", id: undefined },
  ]);
});

test("CRLF, CR and LF all end lines, even when a chunk splits a CRLF", () => {
  assert.deepEqual(parse(["data: a\r\n\r\n", "data: b\r\r", "data: c\n\n"]).map((e) => e.data), [
    "a",
    "b",
    "c",
  ]);
  // "\r" at the end of one chunk and "\n" at the start of the next are one line break, not two.
  assert.deepEqual(parse(["data: a\r", "\ndata: b\r\n\r\n"]).map((e) => e.data), ["a\nb"]);
});

test("events and lines split across chunks anywhere", () => {
  const text = 'event: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"x"}\n\n';
  for (let at = 1; at < text.length; at++) {
    const events = parse([text.slice(0, at), text.slice(at)]);
    assert.deepEqual(
      events,
      [{ type: "message", data: '{"jsonrpc":"2.0","method":"x"}', id: "1" }],
      `split at ${at}`,
    );
  }
});

test("a named event keeps its type; the type does not leak into the next event", () => {
  assert.deepEqual(parse(["event: endpoint\ndata: /x\n\ndata: y\n\n"]).map((e) => e.type), [
    "endpoint",
    "message",
  ]);
});

test("an id containing NUL is ignored, and a non-numeric retry too", () => {
  const parser = new SseParser("ok");
  parse(["id: a\0b\nretry: soon\ndata: x\n\n"], parser);
  assert.equal(parser.lastEventId, "ok");
  assert.equal(parser.retryMs, undefined);
});

test("readSse decodes a byte stream, multi-byte characters split across chunks included", async () => {
  const bytes = new TextEncoder().encode("data: caf\u00e9 \u2713\n\nid: 2\ndata: second\n\ndata: unfinished");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
      controller.close();
    },
  });
  const events: SseEvent[] = [];
  for await (const event of readSse(body, new SseParser())) events.push(event);
  // The last event never got its blank line, so it is dropped.
  assert.deepEqual(events.map((e) => e.data), ["caf\u00e9 \u2713", "second"]);
});

test("readSse stops waiting when its signal aborts", async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("data: first\n\n"));
    },
  });
  const abort = new AbortController();
  const seen: string[] = [];
  for await (const event of readSse(body, new SseParser(), abort.signal)) {
    seen.push(event.data);
    abort.abort();
  }
  assert.deepEqual(seen, ["first"]);
});
