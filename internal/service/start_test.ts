import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { createApp } from "../http/app.ts";
import { type Logger, silentLogger } from "../log/mod.ts";
import { type ServiceDefinition, startService } from "./start.ts";

interface Config {
  host: string;
  port: number;
  baseUrl?: string;
  drainMs: number;
}

/** A service that records what happened to it, in order. */
function recorded(events: string[], build?: () => Promise<void>): ServiceDefinition<Config, string> {
  const note = (event: string) => () => {
    events.push(event);
    return Promise.resolve();
  };
  return {
    listen: { host: "host", port: "port", baseUrl: "baseUrl", drainTimeoutMs: "drainMs" },
    open: (c) => {
      events.push(`open on ${c.port === 0 ? "port 0" : "a held port"}`);
      return Promise.resolve({
        store: "store",
        ready: { backend: "test" },
        close: note("store closed"),
      });
    },
    build: async (c, store) => {
      await build?.();
      const app = createApp({ log: silentLogger });
      app.get("/port", (ctx) => ctx.json({ port: c.port, store }));
      return {
        app,
        beforeDrain: note("before drain"),
        close: note("parts closed"),
        listening: () => void events.push("listening"),
      };
    },
  };
}

const lines = (into: string[]): Logger => ({
  ...silentLogger,
  info: (msg: string) => void into.push(msg),
  child: () => lines(into),
});

test("port 0 is resolved before the app is built, and the app sees the port it listens on", async () => {
  const events: string[] = [];
  const log: string[] = [];
  const server = await startService(
    { host: "127.0.0.1", port: 0, drainMs: 1_000 },
    lines(log),
    recorded(events),
    { handleSignals: false },
  );
  try {
    assert.ok(server.port > 0);
    assert.deepEqual(await (await fetch(`${server.url}/port`)).json(), { port: server.port, store: "store" });
    assert.deepEqual(events, ["open on a held port", "listening"]);
    assert.ok(log.indexOf("database ready") < log.indexOf("listening"), log.join(", "));
  } finally {
    await server.stop();
  }
  assert.deepEqual(events.slice(2), ["before drain", "parts closed", "store closed"]);
});

test("with a public URL configured, port 0 is left to the listener", async () => {
  const events: string[] = [];
  const server = await startService(
    { host: "127.0.0.1", port: 0, baseUrl: "https://example.com", drainMs: 1_000 },
    silentLogger,
    recorded(events),
    { handleSignals: false },
  );
  await server.stop();
  assert.equal(events[0], "open on port 0");
});

test("a failed build closes the store and gives the held port back", async () => {
  const events: string[] = [];
  let held = 0;
  const service = recorded(events, () => Promise.reject(new Error("no parts")));
  const open = service.open;
  service.open = (c, log) => {
    held = c.port;
    return open(c, log);
  };
  await assert.rejects(
    startService({ host: "127.0.0.1", port: 0, drainMs: 1_000 }, silentLogger, service, {
      handleSignals: false,
    }),
    /no parts/,
  );
  assert.deepEqual(events, ["open on a held port", "store closed"]);
  // Released: another server can bind it.
  const other = createServer();
  await new Promise<void>((resolve, reject) =>
    other.once("error", reject).listen(held, "127.0.0.1", resolve)
  );
  await new Promise<void>((resolve) => other.close(() => resolve()));
});
