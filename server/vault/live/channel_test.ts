import assert from "node:assert/strict";
import { test } from "node:test";
import type { ServerSocket } from "../../../internal/platform/mod.ts";
import { Channel, MAX_MESSAGE_BYTES, POLICY_VIOLATION } from "./channel.ts";

/** A socket whose client never reads: everything sent stays buffered. */
function stalledSocket() {
  const sent: string[] = [];
  let buffered = 0;
  const closed: { code?: number; reason?: string }[] = [];
  const socket: ServerSocket = {
    send: (text) => {
      sent.push(text);
      buffered += text.length;
    },
    sendBytes: () => {},
    close: (code, reason) => void closed.push({ code, reason }),
    bufferedAmount: () => buffered,
  };
  return { socket, sent, closed };
}

test("a client that does not read is dropped with 1008 once its queue is full, and nothing more is queued", () => {
  const { socket, sent, closed } = stalledSocket();
  let removed = 0;
  const ch = new Channel("u1", socket, {
    heartbeatMs: 60_000,
    maxBufferedBytes: 1_000,
    onClose: () => removed++,
  });
  for (let i = 0; i < 100; i++) ch.send({ kind: "note.updated", path: `n${i}.md`, pad: "x".repeat(100) });
  assert.ok(sent.length < 15, `queued ${sent.length}`);
  assert.deepEqual(closed, [{ code: POLICY_VIOLATION, reason: "too slow: send queue full" }]);
  assert.equal(removed, 1);
  assert.ok(ch.closed);
});

test("a frame over 64 KB closes with 1008; a ping is answered", () => {
  const { socket, sent, closed } = stalledSocket();
  const ch = new Channel("u1", socket, { heartbeatMs: 60_000, maxBufferedBytes: 1 << 20, onClose: () => {} });
  ch.receive('{"type":"ping"}', 15);
  assert.deepEqual(JSON.parse(sent[0]!), { kind: "pong" });
  ch.receive("x", MAX_MESSAGE_BYTES + 1);
  assert.equal(closed[0]?.code, POLICY_VIOLATION);
});
