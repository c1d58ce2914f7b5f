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
import { Hono } from "hono";
import { z } from "zod";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { MemsvcEnv } from "../env.ts";
import { createMcpServer, type McpDeps } from "../mcp/mcp_server.ts";
import type { JSONRPCMessage } from "../../../internal/mcp/sdk.ts";
import { handleStreamableHttp, jsonRpcFailure } from "../../../internal/mcp/streamable_http.ts";
import { jsonRpcBody, jsonRpcError, streamableHttpSpecs } from "../../../internal/mcp/route_specs.ts";
import type { SessionRegistry } from "../../../internal/mcp/sessions.ts";
import { SseServerTransport } from "../../../internal/mcp/sse_transport.ts";
import { authInfoFor } from "../mcp/tool_result.ts";
import { validationErrorBody } from "../../../internal/openapi/mod.ts";
import { defineRoute, mountRoute, mountRoutes } from "../openapi/route_spec.ts";

export interface McpRoutesDeps {
  registry: SessionRegistry;
  server: Omit<McpDeps, "toolNames">;
  keepAliveMs: number;
}

const MESSAGES_PATH = "/mcp/messages";
const tag = "mcp";
const streamable = streamableHttpSpecs({
  tag,
  path: "/mcp",
  // MCP hosts authenticate with a bearer; a browser cookie never opens or drives a session.
  access: "bearer",
  description: "MCP Streamable HTTP (protocol revision 2025-03-26 and later): POST an `initialize` " +
    "request to open a session (its id comes back in `Mcp-Session-Id`), then send that header with " +
    "every request. Behaviour rules come in the `instructions` of the initialize result.",
  errors: [400, 403, 404],
}, {
  streamSummary: "MCP: open the server-to-client SSE stream of a session",
  goneDescription: "the session is gone: initialize again",
});

export const mcpApi = {
  ...streamable,
  sse: defineRoute({
    method: "get",
    path: "/mcp/sse",
    operationId: "mcpSse",
    tag,
    access: "bearer",
    summary: "MCP over the legacy SSE transport: open a session",
    description: "The first event (`endpoint`) names the URL to POST messages to. At most 10 sessions " +
      "per user; idle sessions are closed after 30 minutes.",
    responses: { 200: { description: "an SSE stream", contentType: "text/event-stream" } },
    errors: [429],
  }),
  messages: defineRoute({
    method: "post",
    path: MESSAGES_PATH,
    operationId: "mcpSseMessage",
    tag,
    access: "bearer",
    summary: "MCP over SSE: post a message to a session",
    query: z.object({ sessionId: z.string().min(1).describe("from the `endpoint` event of /mcp/sse") }),
    rawBody: jsonRpcBody,
    responses: {
      202: { description: "accepted; the answer comes on the SSE stream" },
      400: {
        description: "no sessionId (structured issues), or a body that is not JSON (a JSON-RPC error)",
        schema: z.union([validationErrorBody, jsonRpcError]),
      },
    },
    errors: [403, 404],
  }),
};

export function mcpRoutes({ registry, server, keepAliveMs }: McpRoutesDeps): Hono<MemsvcEnv> {
  const app = new Hono<MemsvcEnv>();
  mountRoutes(app, [mcpApi.post, mcpApi.get, mcpApi.delete], (c) => {
    const caller = callerOf(c);
    return handleStreamableHttp({
      registry,
      request: c.req.raw,
      userId: caller.userId,
      authInfo: authInfoFor(caller, c.get("requestId")),
      createServer: () => createMcpServer(server),
    });
  });

  mountRoute(app, mcpApi.sse, (c) => {
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
      server: mcp,
      close: () => mcp.close(),
    });
    void mcp.connect(transport);
    return transport.response;
  });

  mountRoute(app, mcpApi.messages, async (c, { query }) => {
    const caller = callerOf(c);
    const session = registry.get(query.sessionId);
    if (!session || session.kind !== "sse") return c.json({ error: "no such MCP session" }, 404);
    if (session.userId !== caller.userId) {
      return c.json({ error: "this MCP session belongs to another user" }, 403);
    }
    let body: JSONRPCMessage | JSONRPCMessage[];
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcFailure(-32700, "Parse error: body is not JSON"), 400);
    }
    registry.touch(session);
    const authInfo = authInfoFor(caller, c.get("requestId"));
    for (const message of Array.isArray(body) ? body : [body]) session.transport.receive(message, authInfo);
    return c.text("Accepted", 202);
  });
  return app;
}
