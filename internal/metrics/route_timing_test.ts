import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { createApp } from "../http/mod.ts";
import { silentLogger } from "../log/mod.ts";
import { routeTiming, UNMATCHED_ROUTE } from "./route_timing.ts";

test("each request is reported under its route pattern with its status and the caller variable", async () => {
  const seen: [string, number, string | undefined][] = [];
  const recorder = {
    recordRequest: (route: string, status: number, ms: number, caller?: { id: string }) => {
      assert.ok(ms >= 0);
      seen.push([route, status, caller?.id]);
    },
  };
  const api = new Hono<{ Variables: { caller: { id: string } | undefined } }>()
    .use(routeTiming(recorder))
    .use(async (c, next) => {
      c.set("caller", c.req.header("x-who") ? { id: c.req.header("x-who")! } : undefined);
      await next();
    })
    .get("/notes/:id", (c) => c.json({ id: c.req.param("id") }));
  const app = createApp({ log: silentLogger }).route("/", api);
  const get = (path: string, who?: string) =>
    app.request(path, { headers: who ? { "x-who": who } : {} }, { remoteAddr: "127.0.0.1" });
  await get("/notes/a", "ada");
  await get("/notes/b");
  await get("/elsewhere");
  assert.deepEqual(seen, [["/notes/:id", 200, "ada"], ["/notes/:id", 200, undefined], [
    UNMATCHED_ROUTE,
    404,
    undefined,
  ]]);
});
