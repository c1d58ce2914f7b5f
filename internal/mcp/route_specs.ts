/**
 * How a server's MCP Streamable HTTP endpoint is described in its OpenAPI document (the routes
 * streamable_http.ts serves): the JSON-RPC bodies, the transport's own error answers, and the POST,
 * GET and DELETE operations on one path. A server passes its path, its kind of access and its words.
 *
 * @example
 * export const mcpApi = streamableHttpSpecs({
 *   tag: "mcp", path: "/api/mcp", access: "apiKey", description: "MCP Streamable HTTP. ...",
 * }, { streamSummary: "MCP: the session's server-to-client SSE stream", goneDescription: "the session is gone" });
 * mountRoutes(app, Object.values(mcpApi), (c) => handleStreamableHttp({ ... }));
 */
import { z } from "zod";
import { defineRoute } from "../openapi/route_spec.ts";

export const jsonRpc = z.looseObject({ jsonrpc: z.literal("2.0") }).describe("a JSON-RPC 2.0 message");

/** A message or a batch, as POSTed to the transport. */
export const jsonRpcBody = {
  description: "a JSON-RPC message or a batch",
  schema: z.union([jsonRpc, z.array(jsonRpc)]),
};

export const jsonRpcError = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number().int(), message: z.string() }),
  id: z.null(),
}).meta({ id: "JsonRpcError" });

/** What every operation on the endpoint shares. */
export interface StreamableHttpCommon<A extends string> {
  tag: string;
  path: string;
  access: A;
  description: string;
  errors?: readonly number[];
}

/** The POST, GET and DELETE operations of a Streamable HTTP endpoint. */
export function streamableHttpSpecs<const A extends string>(
  common: StreamableHttpCommon<A>,
  words: {
    /** The GET operation's summary. */
    streamSummary: string;
    /** When a session id names no session (404). */
    goneDescription: string;
  },
) {
  // The transport's own error answers: malformed JSON, no session yet (400), a session that is gone (404).
  const transportErrors = {
    400: { description: "not JSON, or no valid session: send initialize first", schema: jsonRpcError },
    404: { description: words.goneDescription, schema: jsonRpcError },
  };
  return {
    post: defineRoute({
      ...common,
      method: "post",
      operationId: "mcpPost",
      summary: "MCP: send JSON-RPC messages",
      rawBody: jsonRpcBody,
      responses: {
        200: { description: "the answer, as JSON or as an SSE stream (text/event-stream)", schema: jsonRpc },
        202: { description: "accepted (notifications and responses)" },
        ...transportErrors,
      },
    }),
    get: defineRoute({
      ...common,
      method: "get",
      operationId: "mcpStream",
      summary: words.streamSummary,
      responses: {
        200: { description: "an SSE stream", contentType: "text/event-stream" },
        ...transportErrors,
      },
    }),
    delete: defineRoute({
      ...common,
      method: "delete",
      operationId: "mcpClose",
      summary: "MCP: end a session",
      responses: { 200: { description: "closed" }, ...transportErrors },
    }),
  };
}
