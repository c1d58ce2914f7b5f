import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { freePort, holdFreePort } from "./free_port.ts";

/** Resolves with the listen error's code, or "listening" (and closes again). */
function tryListen(port: number): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve("listening")));
  });
}

test("a held port cannot be bound by anyone else until it is released", async () => {
  const held = await holdFreePort();
  assert.ok(held.port > 0);
  assert.equal(await tryListen(held.port), "EADDRINUSE");
  await held.release();
  await held.release(); // a second release is harmless
  assert.equal(await tryListen(held.port), "listening");
});

test("freePort hands out a port that is free to bind", async () => {
  assert.equal(await tryListen(await freePort()), "listening");
});
