import { test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { KeepAliveClient } from "./keep_alive_client.ts";

/** A node:http server that echoes each JSON body with the request's headers and its socket's number. */
async function echoServer() {
  const sockets = new Map<unknown, number>();
  const server = createServer((req: IncomingMessage, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const answer = JSON.stringify({
        body: JSON.parse(body),
        auth: req.headers.authorization,
        type: req.headers["content-type"],
        socket: sockets.get(req.socket),
        // Long and multi-byte, so an answer spans several reads.
        pad: "é".repeat(Number(JSON.parse(body).pad ?? 0)),
      });
      // node:http sends a body without a length in chunks; "/sized" answers with Content-Length.
      const sized = req.url === "/sized" ? { "content-length": Buffer.byteLength(answer) } : {};
      res.writeHead(req.url === "/missing" ? 404 : 201, { "content-type": "application/json", ...sized });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, sockets };
}

test("KeepAliveClient sends each request with its headers over one connection and reads answers whole", async () => {
  const { url, server, sockets } = await echoServer();
  const client = new KeepAliveClient(url, { authorization: "Bearer nm_x" });
  try {
    for (
      const [path, pad] of [["/v1/remember", 0], ["/sized", 1], ["/sized", 100_000], [
        "/v1/remember",
        100_000,
      ], ["/v1/remember", 3]] as const
    ) {
      const answer = await client.postJson(path, { content: `c${pad}`, pad });
      assert.equal(answer.status, 201);
      const body = JSON.parse(answer.body);
      assert.deepEqual(body.body, { content: `c${pad}`, pad });
      assert.equal(body.auth, "Bearer nm_x");
      assert.equal(body.type, "application/json");
      assert.equal(body.socket, 0);
      assert.equal(body.pad.length, pad);
    }
    assert.equal(sockets.size, 1);
    assert.equal((await client.postJson("/missing", {})).status, 404);
    await assert.rejects(
      () => Promise.all([client.postJson("/a", {}), client.postJson("/b", {})]),
      /one request/,
    );
  } finally {
    client.close();
    server.closeAllConnections();
    server.close();
  }
});

test("KeepAliveClient connects again after the server closed its connection", async () => {
  const { url, server, sockets } = await echoServer();
  const client = new KeepAliveClient(url, {});
  try {
    assert.equal(JSON.parse((await client.postJson("/", { n: 1 })).body).socket, 0);
    server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(JSON.parse((await client.postJson("/", { n: 2 })).body).socket, 1);
    assert.equal(sockets.size, 2);
  } finally {
    client.close();
    server.closeAllConnections();
    server.close();
  }
});
