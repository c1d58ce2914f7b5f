import { test } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../log/mod.ts";
import { createApp } from "./app.ts";
import { serve } from "./serve.ts";

test("stop() finishes in-flight requests, refuses new connections, then runs onClose", async () => {
  const events: string[] = [];
  const app = createApp({ log: silentLogger });
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  app.get("/slow", async (c) => {
    entered();
    await new Promise((r) => setTimeout(r, 300));
    events.push("slow done");
    return c.json({ done: true });
  });
  const server = serve(app, {
    hostname: "127.0.0.1",
    port: 0,
    log: silentLogger,
    handleSignals: false,
    onClose: () => {
      events.push("closed");
      return Promise.resolve();
    },
  });
  assert.ok(server.port > 0);
  const slow = fetch(`${server.url}/slow`).then((r) => r.json());
  await inside;
  const stopped = server.stop();
  assert.deepEqual(await slow, { done: true });
  await stopped;
  assert.deepEqual(events, ["slow done", "closed"]);
  await assert.rejects(fetch(`${server.url}/slow`));
  assert.equal(server.stop(), stopped, "stop is idempotent");
});

test("a listen factory serves the app on a listener of its own (the manager's TLS with certificate swapping)", async () => {
  const app = createApp({ log: silentLogger });
  app.get("/hello", (c) => c.text("hello"));
  let handler: ((req: Request, peer: { remoteAddr: string }) => Response | Promise<Response>) | undefined;
  let closed = false;
  const server = serve(app, {
    hostname: "127.0.0.1",
    port: 8443,
    log: silentLogger,
    handleSignals: false,
    idleTimeoutSeconds: 30,
    listen: (h, options) => {
      handler = h;
      assert.deepEqual(options, { hostname: "127.0.0.1", port: 8443, idleTimeoutSeconds: 30 });
      return {
        hostname: options.hostname,
        port: 8443,
        secure: true,
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      };
    },
  });
  assert.equal(server.url, "https://127.0.0.1:8443", "a listener with TLS of its own serves https");
  const res = await handler!(new Request("https://127.0.0.1:8443/hello"), { remoteAddr: "127.0.0.1" });
  assert.equal(await res.text(), "hello");
  await server.stop();
  assert.ok(closed, "stop() closes the factory's listener");
});
