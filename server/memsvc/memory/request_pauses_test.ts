import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { RequestPauses } from "./request_pauses.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("RequestPauses", () => {
  it("resolves at once when no request ran for the idle time", async () => {
    const pauses = new RequestPauses();
    const t = performance.now();
    await pauses.pause(50, 5_000);
    assert.ok(performance.now() - t < 40, "nothing to wait for");
  });

  it("waits until the request in flight ends and the idle time passed after it", async () => {
    const pauses = new RequestPauses();
    const end = pauses.begin();
    let paused = false;
    const waiting = pauses.pause(60, 5_000).then(() => (paused = true));
    await sleep(150);
    assert.equal(paused, false, "a request is running");
    const ended = performance.now();
    end();
    await waiting;
    assert.ok(performance.now() - ended >= 55, "the pause lasted the idle time");
  });

  it("waits no longer than maxMs under a steady stream of requests", async () => {
    const pauses = new RequestPauses();
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        const end = pauses.begin();
        await sleep(5);
        end();
        await sleep(1);
      }
    })();
    const t = performance.now();
    await pauses.pause(50, 300);
    const waited = performance.now() - t;
    streaming = false;
    await stream;
    assert.ok(waited >= 290 && waited < 1_000, `waited ${waited} ms`);
  });

  it("stops waiting when the signal is aborted", async () => {
    const pauses = new RequestPauses();
    const end = pauses.begin();
    const stop = new AbortController();
    const t = performance.now();
    setTimeout(() => stop.abort(), 30);
    await pauses.pause(50, 10_000, stop.signal);
    assert.ok(performance.now() - t < 1_000, "aborted, not timed out");
    end();
  });

  it("counts requests through its middleware until they are answered", async () => {
    const pauses = new RequestPauses();
    const app = new Hono();
    app.use(pauses.middleware);
    let idleInside: boolean | undefined;
    app.get("/x", (c) => {
      idleInside = pauses.idle(0);
      return c.text("ok");
    });
    assert.equal(pauses.idle(0), true);
    assert.equal((await app.request("/x")).status, 200);
    assert.equal(idleInside, false, "in flight while the handler runs");
    assert.equal(pauses.idle(0), true, "answered");
    assert.equal(pauses.idle(60_000), false, "but only just");
  });
});
