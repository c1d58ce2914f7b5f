import assert from "node:assert/strict";
import { test } from "node:test";
import { listen } from "./listen.ts";

test("listen() upgrades a request to a WebSocket on this runtime, with frame sizes and close codes", async () => {
  const closes: number[] = [];
  const server = listen(
    (_req, peer) =>
      peer.upgrade?.({
        open: (s) => s.send("hello"),
        message: (s, data, size) => (size > 10 ? s.close(1008, "too big") : s.send(`echo ${data} ${size}`)),
        close: (_s, code) => void closes.push(code),
      }) ?? new Response("not an upgrade", { status: 426 }),
    { hostname: "127.0.0.1", port: 0 },
  );
  try {
    assert.equal(await (await fetch(`http://127.0.0.1:${server.port}/`)).text(), "not an upgrade");
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`);
    const got: string[] = [];
    const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
    ws.onmessage = (e) => {
      got.push(String(e.data));
      if (got.length === 1) ws.send("hé");
      if (got.length === 2) ws.send("x".repeat(11));
    };
    assert.equal(await closed, 1008);
    assert.deepEqual(got, ["hello", "echo hé 3"]);
  } finally {
    await server.close();
  }
});
