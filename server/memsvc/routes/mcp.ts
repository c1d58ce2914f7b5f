/**
 * MCP for agent hosts, with a bearer credential (nm_ API token or ns_ session; not a cookie):
 *
 *   POST|GET|DELETE /mcp                   Streamable HTTP, sessions by Mcp-Session-Id
 *   GET  /mcp/sse                          legacy SSE stream (at most 10 per user; 11th → 429)
 *   POST /mcp/messages?sessionId=<id>      messages for an SSE session (another user's → 403, unknown → 404)
 *
 * Every message carries the caller and request id of the HTTP request that delivered it to the
 * tools (authInfo), and a session answers only the user who opened it.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { callerOf } from "../auth/caller.ts";
import type { MemsvcEnv } from "../env.ts";
import { createMcpServer, type McpDeps } from "../mcp/mcp_server.ts";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  WebStandardStreamableHTTPServerTransport,
} from "../mcp/sdk.ts";
import type { SessionRegistry } from "../mcp/sessions.ts";
import { SseServerTransport } from "../mcp/sse_transport.ts";
import { authInfoFor } from "../mcp/tool_result.ts";

export interface McpRoutesDeps {
  registry: SessionRegistry;
  server: Omit<McpDeps, "toolNames">;
  keepAliveMs: number;
}

const MESSAGES_PATH = "/mcp/messages";

/** MCP hosts authenticate with a bearer; a browser cookie never opens or drives a session. */
const requireBearer: MiddlewareHandler<MemsvcEnv> = async (c, next) => {
  const caller = callerOf(c);
  if (caller.via === "cookie") {
    throw new HTTPException(401, { message: "MCP needs a bearer token (nm_ or ns_)" });
  }
  await next();
};

const jsonRpcError = (code: number, message: string) => ({
  jsonrpc: "2.0",
  error: { code, message },
  id: null,
});

export function mcpRoutes({ registry, server, keepAliveMs }: McpRoutesDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  app.use("/mcp", requireBearer);
  app.use("/mcp/*", requireBearer);

  app.all("/mcp", async (c) => {
    const caller = callerOf(c);
    const authInfo = authInfoFor(caller, c.get("requestId"));
    let parsedBody: unknown;
    if (c.req.method === "POST") {
      try {
        parsedBody = await c.req.json();
      } catch {
        return c.json(jsonRpcError(-32700, "Parse error: body is not JSON"), 400);
      }
    }
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId) {
      const session = registry.get(sessionId);
      // 404 tells a client its session is gone and it must initialize again (MCP spec).
      if (!session || session.kind !== "http") return c.json(jsonRpcError(-32001, "Session not found"), 404);
      if (session.userId !== caller.userId) {
        return c.json({ error: "this MCP session belongs to another user" }, 403);
      }
      registry.touch(session);
      return await session.transport.handleRequest(c.req.raw, { parsedBody, authInfo });
    }
    if (c.req.method !== "POST" || !isInitializeRequest(parsedBody)) {
      return c.json(jsonRpcError(-32000, "Bad Request: no valid session id; send initialize first"), 400);
    }
    const mcp = createMcpServer(server);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) =>
        registry.add({
          id,
          userId: caller.userId,
          kind: "http",
          lastUsed: Date.now(),
          transport,
          close: () => mcp.close(),
        }),
      onsessionclosed: (id) => registry.remove(id),
    });
    transport.onclose = () => transport.sessionId && registry.remove(transport.sessionId);
    await mcp.connect(transport);
    return await transport.handleRequest(c.req.raw, { parsedBody, authInfo });
  });

  app.get("/mcp/sse", (c) => {
    const caller = callerOf(c);
    if (!registry.sseSlotFree(caller.userId)) {
      const max = registry.limits.maxSsePerUser;
      return c.json({ error: `too many concurrent SSE sessions (limit ${max} per user)` }, 429);
    }
    const transport = new SseServerTransport(MESSAGES_PATH, keepAliveMs);
    const mcp = createMcpServer(server);
    transport.onclose = () => registry.remove(transport.sessionId);
    registry.add({
      id: transport.sessionId,
      userId: caller.userId,
      kind: "sse",
      lastUsed: Date.now(),
      transport,
      close: () => mcp.close(),
    });
    void mcp.connect(transport);
    return transport.response;
  });

  app.post(MESSAGES_PATH, async (c) => {
    const caller = callerOf(c);
    const session = registry.get(c.req.query("sessionId") ?? "");
    if (!session || session.kind !== "sse") return c.json({ error: "no such MCP session" }, 404);
    if (session.userId !== caller.userId) {
      return c.json({ error: "this MCP session belongs to another user" }, 403);
    }
    let body: JSONRPCMessage | JSONRPCMessage[];
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcError(-32700, "Parse error: body is not JSON"), 400);
    }
    registry.touch(session);
    const authInfo = authInfoFor(caller, c.get("requestId"));
    for (const message of Array.isArray(body) ? body : [body]) session.transport.receive(message, authInfo);
    return c.text("Accepted", 202);
  });
  return app;
}
