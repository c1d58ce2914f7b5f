/**
 * The memory data plane under /v1 (bearer nm_ or ns_, or a session cookie):
 *
 *   POST   /v1/remember                  store a fact (gate, dedupe) -> 201 {id} | 200 {id, deduplicated} | 200 {id: null, rejected}
 *   POST   /v1/search                    hybrid search -> {results, degraded?}
 *   GET    /v1/recent                    newest entries, paginated -> {entries, nextCursor}
 *   GET    /v1/memories/:id              one entry
 *   PUT    /v1/memories/:id              update in place -> the entry
 *   DELETE /v1/memories/:id              forget -> {deleted: true}
 *   GET    /v1/memories/:id/neighbors    graph walk, ?depth=1|2|3 -> {root, depth, nodes, edges}
 */
import { Hono } from "hono";
import { parseJson, parseQuery } from "../../../internal/http/mod.ts";
import { callerOf } from "../auth/caller.ts";
import { requireCaller } from "../auth/require.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemoryService } from "../memory/memory_service.ts";
import { neighborsQuery, recentQuery, rememberBody, searchBody, updateBody } from "../memory/schemas.ts";
import type { SearchService } from "../memory/search.ts";

export interface MemoryRoutesDeps {
  memory: MemoryService;
  search: SearchService;
}

export function memoryRoutes({ memory, search }: MemoryRoutesDeps): Hono<MemsvcEnv> {
  return new Hono<MemsvcEnv>()
    .use("/v1/remember", requireCaller())
    .use("/v1/search", requireCaller())
    .use("/v1/recent", requireCaller())
    .use("/v1/memories/*", requireCaller())
    .post("/v1/remember", async (c) => {
      const result = await memory.remember(callerOf(c), await parseJson(c, rememberBody));
      const created = result.id !== null && !("deduplicated" in result);
      return c.json(result, created ? 201 : 200);
    })
    .post("/v1/search", async (c) => c.json(await search.search(callerOf(c), await parseJson(c, searchBody))))
    .get("/v1/recent", async (c) => c.json(await memory.recent(callerOf(c), parseQuery(c, recentQuery))))
    .get("/v1/memories/:id", async (c) => c.json(await memory.get(callerOf(c), c.req.param("id"))))
    .put(
      "/v1/memories/:id",
      async (c) =>
        c.json(await memory.update(callerOf(c), c.req.param("id"), await parseJson(c, updateBody))),
    )
    .delete("/v1/memories/:id", async (c) => c.json(await memory.forget(callerOf(c), c.req.param("id"))))
    .get(
      "/v1/memories/:id/neighbors",
      async (c) =>
        c.json(await memory.neighbors(callerOf(c), c.req.param("id"), parseQuery(c, neighborsQuery))),
    );
}
