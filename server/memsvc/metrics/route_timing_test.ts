import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { createApp } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { requireCaller } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { apiTokenCaller } from "../routes/_test_app.ts";
import { MemsvcMetrics } from "./registry.ts";
import { routeTiming, UNMATCHED_ROUTE } from "../../../internal/metrics/route_timing.ts";

/** memsvc's layout in small: the timing first, a caller resolver, guarded routes in a sub-app. */
function appWith(metrics: MemsvcMetrics) {
  const api = new Hono<MemsvcEnv>();
  api.use(routeTiming(metrics));
  api.use("/v1/*", async (c, next) => {
    c.set("caller", c.req.header("authorization") ? apiTokenCaller("ada", "hash-a") : undefined);
    await next();
  });
  api.route(
    "/",
    new Hono<MemsvcEnv>()
      .use("/v1/memories/*", requireCaller())
      .get("/v1/memories/:id", (c) => c.json({ id: c.req.param("id") }))
      .get("/v1/boom", () => {
        throw new Error("boom");
      }),
  );
  const app = createApp({ log: silentLogger }).route("/", api);
  return (path: string, auth = true) =>
    app.request(path, { headers: auth ? { authorization: "Bearer x" } : {} }, { remoteAddr: "127.0.0.1" });
}

test("requests are recorded under the route pattern, never the raw path", async () => {
  const metrics = new MemsvcMetrics();
  const get = appWith(metrics);
  for (const id of ["m_1", "m_2", "m_3"]) assert.equal((await get(`/v1/memories/${id}`)).status, 200);
  assert.equal((await get("/v1/memories/m_4", false)).status, 401);
  assert.equal((await get("/v1/boom")).status, 500);
  for (const path of ["/nope", "/v1/memories/a/b", "/v1/x%00y"]) assert.equal((await get(path)).status, 404);

  const routes = metrics.routes();
  assert.deepEqual([...routes.keys()].sort(), ["/v1/boom", "/v1/memories/:id", UNMATCHED_ROUTE]);
  const memories = routes.get("/v1/memories/:id")!;
  assert.equal(memories.latency.count, 4);
  assert.deepEqual(Object.fromEntries(memories.byStatus), { 200: 3, 401: 1 });
  assert.deepEqual(Object.fromEntries(routes.get("/v1/boom")!.byStatus), { 500: 1 });
  assert.deepEqual(Object.fromEntries(routes.get(UNMATCHED_ROUTE)!.byStatus), { 404: 3 });
});

test("each request counts for its caller, API tokens by hash", async () => {
  const metrics = new MemsvcMetrics();
  const get = appWith(metrics);
  await get("/v1/memories/m_1");
  await get("/v1/memories/m_2");
  await get("/v1/memories/m_3", false);
  const top = metrics.topCallers();
  assert.deepEqual(top.users.map((u) => [u.userId, u.requests]), [["ada", 2]]);
  assert.deepEqual(top.tokens.map((t) => [t.tokenHash, t.requests]), [["hash-a", 2]]);
  assert.equal(metrics.rates().requestsPerSecond, Math.round((3 / 60) * 1000) / 1000);
});
