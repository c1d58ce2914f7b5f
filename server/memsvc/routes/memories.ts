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
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import type { MemoryService } from "../memory/memory_service.ts";
import {
  deletedResponse,
  memoryEntry,
  memoryIdParam,
  neighborsQuery,
  neighborsResponse,
  recentQuery,
  recentResponse,
  rememberBody,
  rememberResult,
  searchBody,
  searchResponse,
  updateBody,
} from "../memory/schemas.ts";
import type { SearchService } from "../memory/search.ts";
import { defineRoute, mountRoute } from "../openapi/route_spec.ts";

export interface MemoryRoutesDeps {
  memory: MemoryService;
  search: SearchService;
}

const tag = "memory";
const scopeErrors = [403, 404];

export const memoryApi = {
  remember: defineRoute({
    method: "post",
    path: "/v1/remember",
    operationId: "remember",
    tag,
    access: "caller",
    summary: "Store a memory entry",
    description: "Content under 12 characters or conversational filler is rejected (200 with `rejected`) " +
      "unless `force` is true; the same trimmed content in the same scope returns the existing id with " +
      "`deduplicated`. `project` defaults to the caller's active project.",
    body: rememberBody,
    responses: {
      201: { description: "stored", schema: rememberResult },
      200: { description: "deduplicated or rejected", schema: rememberResult },
    },
    errors: scopeErrors,
  }),
  search: defineRoute({
    method: "post",
    path: "/v1/search",
    operationId: "search",
    tag,
    access: "caller",
    summary: "Hybrid keyword and vector search",
    body: searchBody,
    responses: { 200: { description: "results, best first", schema: searchResponse } },
    errors: scopeErrors,
  }),
  recent: defineRoute({
    method: "get",
    path: "/v1/recent",
    operationId: "recent",
    tag,
    access: "caller",
    summary: "Newest entries, paginated",
    description: "`includeProjects` and `includeNamespaces` are comma-separated lists.",
    query: recentQuery,
    responses: { 200: { description: "a page of entries, newest first", schema: recentResponse } },
    errors: scopeErrors,
  }),
  get: defineRoute({
    method: "get",
    path: "/v1/memories/:id",
    operationId: "getMemory",
    tag,
    access: "caller",
    summary: "One entry",
    params: memoryIdParam,
    responses: { 200: { description: "the entry", schema: memoryEntry } },
    errors: scopeErrors,
  }),
  update: defineRoute({
    method: "put",
    path: "/v1/memories/:id",
    operationId: "updateMemory",
    tag,
    access: "caller",
    summary: "Update an entry in place",
    description: "Keeps the id, hit count, edges and creation time. A content change re-indexes and " +
      "re-embeds; a metadata-only change does not call the embedder.",
    params: memoryIdParam,
    body: updateBody,
    responses: { 200: { description: "the updated entry", schema: memoryEntry } },
    errors: scopeErrors,
  }),
  forget: defineRoute({
    method: "delete",
    path: "/v1/memories/:id",
    operationId: "forgetMemory",
    tag,
    access: "caller",
    summary: "Forget an entry",
    params: memoryIdParam,
    responses: { 200: { description: "deleted", schema: deletedResponse } },
    errors: scopeErrors,
  }),
  neighbors: defineRoute({
    method: "get",
    path: "/v1/memories/:id/neighbors",
    operationId: "neighbors",
    tag,
    access: "caller",
    summary: "The graph around an entry",
    params: memoryIdParam,
    query: neighborsQuery,
    responses: { 200: { description: "nodes and edges within `depth` hops", schema: neighborsResponse } },
    errors: scopeErrors,
  }),
};

export function memoryRoutes({ memory, search }: MemoryRoutesDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  const api = memoryApi;
  mountRoute(app, api.remember, async (c, { body }) => {
    const result = await memory.remember(callerOf(c), body);
    const created = result.id !== null && !("deduplicated" in result);
    return c.json(result, created ? 201 : 200);
  });
  mountRoute(app, api.search, async (c, { body }) => c.json(await search.search(callerOf(c), body)));
  mountRoute(app, api.recent, async (c, { query }) => c.json(await memory.recent(callerOf(c), query)));
  mountRoute(app, api.get, async (c, { params }) => c.json(await memory.get(callerOf(c), params.id)));
  mountRoute(
    app,
    api.update,
    async (c, { params, body }) => c.json(await memory.update(callerOf(c), params.id, body)),
  );
  mountRoute(app, api.forget, async (c, { params }) => c.json(await memory.forget(callerOf(c), params.id)));
  mountRoute(
    app,
    api.neighbors,
    async (c, { params, query }) => c.json(await memory.neighbors(callerOf(c), params.id, query)),
  );
  return app;
}
