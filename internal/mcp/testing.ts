/**
 * Helpers for tests: a real MCP server (the SDK's McpServer on its Streamable HTTP transport)
 * listening on loopback, with sessions, a bearer check and a log of the HTTP requests it received,
 * to run the bridge against. Not part of the public face (`mod.ts`).
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import {
  type EventStore,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { listen } from "../platform/mod.ts";

export interface TestUpstreamOptions {
  /** The bearer token the server accepts. */
  token: string;
  /** Give SSE events ids and keep them, so streams can be resumed with Last-Event-ID. */
  resumable?: boolean;
  /** Answer requests with JSON bodies instead of SSE streams. */
  jsonResponses?: boolean;
  /** Answer GET with 405, as a server without a stream of its own does. */
  noServerStream?: boolean;
  /**
   * Sees each request first (with the parsed body of a POST); a Response it returns is the answer
   * instead of the MCP server's.
   */
  intercept?: (req: Request, body: unknown) => Response | undefined;
}

/** What the server received: one entry per HTTP request. */
export interface SeenRequest {
  method: string;
  headers: Headers;
  /** The parsed body of a POST. */
  body?: unknown;
}

export interface TestUpstream {
  /** The MCP endpoint: `<baseUrl>/mcp`. */
  url: string;
  baseUrl: string;
  seen: SeenRequest[];
  /** Ids of the sessions that are still open. */
  sessionIds(): string[];
  /** Ids of the sessions ended with DELETE. */
  deleted: string[];
  /** Forgets every session, as if they had expired: their next request gets 404. */
  forgetSessions(): void;
  /** Sends a log message to every session, outside any request: it travels on the GET stream. */
  broadcast(text: string): Promise<void>;
  /** Closes the GET streams from the server's side, as a proxy timing out would. */
  dropServerStreams(): void;
  close(): Promise<void>;
}

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
}

/**
 * Tools: `echo {text}` (marked read-only); `slow {ms}` answers after `ms`; `progress {steps}` sends progress
 * notifications (when the call has a progress token) and a log message before answering;
 * `interrupted` closes its response stream before answering (needs `resumable`).
 */
export function startTestUpstream(options: TestUpstreamOptions): TestUpstream {
  const sessions = new Map<string, Session>();
  /** Every session ever opened, forgotten ones included: closing them ends their open streams. */
  const opened: Session[] = [];
  const seen: SeenRequest[] = [];
  const deleted: string[] = [];

  const openSession = async () => {
    const server = createServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: options.jsonResponses,
      eventStore: options.resumable ? new MemoryEventStore() : undefined,
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
        opened.push({ server, transport });
      },
      onsessionclosed: (id) => {
        deleted.push(id);
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: Request): Promise<Response> => {
    const body = req.method === "POST" ? await req.json().catch(() => undefined) : undefined;
    seen.push({ method: req.method, headers: req.headers, body });
    const intercepted = options.intercept?.(req, body);
    if (intercepted) return intercepted;
    if (req.headers.get("authorization") !== `Bearer ${options.token}`) {
      return Response.json({ error: "unauthorized" }, {
        status: 401,
        headers: { "WWW-Authenticate": "Bearer" },
      });
    }
    if (req.method === "GET" && options.noServerStream) {
      return new Response(null, { status: 405, headers: { Allow: "POST, DELETE" } });
    }
    const sessionId = req.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(404, -32001, "Session not found");
      return session.transport.handleRequest(req, { parsedBody: body });
    }
    if (req.method === "POST" && (body as { method?: unknown })?.method === "initialize") {
      return (await openSession()).handleRequest(req, { parsedBody: body });
    }
    return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
  };

  const listener = listen(handle, { hostname: "127.0.0.1", port: 0, idleTimeoutSeconds: 0 });
  const baseUrl = `http://127.0.0.1:${listener.port}`;
  return {
    url: `${baseUrl}/mcp`,
    baseUrl,
    seen,
    deleted,
    sessionIds: () => [...sessions.keys()],
    forgetSessions: () => sessions.clear(),
    broadcast: async (text) => {
      for (const { server } of sessions.values()) {
        await server.sendLoggingMessage({ level: "info", data: text });
      }
    },
    dropServerStreams: () => {
      for (const { transport } of sessions.values()) transport.closeStandaloneSSEStream();
    },
    close: async () => {
      for (const { server } of opened) await server.close();
      sessions.clear();
      await listener.close();
    },
  };
}

function createServer(): McpServer {
  const server = new McpServer({ name: "test-upstream", version: "1.0.0" }, {
    capabilities: { logging: {} },
  });
  server.registerTool(
    "echo",
    { description: "Echoes text", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    ({ text }) => ({
      content: [{ type: "text", text: `echo: ${text}` }],
    }),
  );
  server.registerTool(
    "slow",
    { description: "Answers after a delay", inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: "text", text: `slept ${ms} ms` }] };
    },
  );
  server.registerTool(
    "progress",
    { description: "Reports progress, logs, then answers", inputSchema: { steps: z.number().int().min(1) } },
    async ({ steps }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: step, total: steps },
          });
        }
      }
      await extra.sendNotification({
        method: "notifications/message",
        params: { level: "info", data: `finished ${steps} steps` },
      });
      // The SDK's client handles notifications a tick late but responses at once, and forgets a call's
      // progress handler with its response: pause so the two do not arrive in one read.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { content: [{ type: "text", text: `did ${steps} steps` }] };
    },
  );
  server.registerTool("interrupted", { description: "Drops its stream, then answers" }, async (extra) => {
    extra.closeSSEStream?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { content: [{ type: "text", text: "answered after the stream was dropped" }] };
  });
  return server;
}

/**
 * Keeps every event, numbered. (The SDK's example store derives a stream from the text before the
 * first "_" of an event id, which breaks for its own GET stream, "_GET_stream".)
 */
class MemoryEventStore implements EventStore {
  #events: { streamId: string; message: JSONRPCMessage }[] = [];

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.#events.push({ streamId, message });
    return Promise.resolve(String(this.#events.length));
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events[Number(eventId) - 1]?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const { streamId } = this.#events[Number(lastEventId) - 1]!;
    for (let i = Number(lastEventId); i < this.#events.length; i++) {
      const event = this.#events[i]!;
      if (event.streamId === streamId) await send(String(i + 1), event.message);
    }
    return streamId;
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
