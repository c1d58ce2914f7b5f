/**
 * One Streamable HTTP exchange (POST, GET or DELETE on a server's MCP path) against the sessions of
 * this process: an `initialize` without a session id opens a session with a fresh server, any other
 * message must name a live session of the same user. Used by memsvc's /mcp and the vault's /api/mcp.
 */
import {
  type AuthInfo,
  isInitializeRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "./sdk.ts";
import type { SessionRegistry } from "./sessions.ts";

export const jsonRpcFailure = (code: number, message: string) => ({
  jsonrpc: "2.0",
  error: { code, message },
  id: null,
});

const json = (body: unknown, status: number) => Response.json(body, { status });

export interface StreamableExchange {
  registry: SessionRegistry;
  request: Request;
  /** The POST body when it was read already (a middleware looked at it); default: read from `request`. */
  body?: string;
  /** Whom the request's credential stands for; a session answers only the user who opened it. */
  userId: string;
  /** Passed to the tools with every message of this request. */
  authInfo: AuthInfo;
  /** A new server for a new session (tools, instructions). */
  createServer(): McpServer;
}

export async function handleStreamableHttp(x: StreamableExchange): Promise<Response> {
  const { registry, request, userId, authInfo } = x;
  let parsedBody: unknown;
  if (request.method === "POST") {
    try {
      parsedBody = JSON.parse(x.body ?? await request.text());
    } catch {
      return json(jsonRpcFailure(-32700, "Parse error: body is not JSON"), 400);
    }
  }
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId) {
    const session = registry.get(sessionId);
    // 404 tells a client its session is gone and it must initialize again (MCP spec).
    if (!session || session.kind !== "http") return json(jsonRpcFailure(-32001, "Session not found"), 404);
    if (session.userId !== userId) return json({ error: "this MCP session belongs to another user" }, 403);
    registry.touch(session);
    return await session.transport.handleRequest(request, { parsedBody, authInfo });
  }
  if (request.method !== "POST" || !isInitializeRequest(parsedBody)) {
    return json(jsonRpcFailure(-32000, "Bad Request: no valid session id; send initialize first"), 400);
  }
  const server = x.createServer();
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) =>
      registry.add({
        id,
        userId,
        kind: "http",
        lastUsed: Date.now(),
        transport,
        server,
        close: () => server.close(),
      }),
    onsessionclosed: (id) => registry.remove(id),
  });
  transport.onclose = () => transport.sessionId && registry.remove(transport.sessionId);
  await server.connect(transport);
  return await transport.handleRequest(request, { parsedBody, authInfo });
}
