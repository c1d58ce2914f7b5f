/**
 * How tools see their caller and report results. Each MCP message is authenticated by the HTTP
 * request that carried it; the transport passes that request's caller and id through `authInfo`,
 * so a tool always acts as whoever sent this very message.
 */
import type { CallToolResult } from "../../../internal/mcp/sdk.ts";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { issuesOf, ValidationError } from "../../../internal/http/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";

export interface ToolIdentity {
  caller: Caller;
  requestId: string;
}

/** What the routes attach to each message as `authInfo.extra`. */
export function authInfoFor(caller: Caller, requestId: string) {
  return { token: "", clientId: caller.userId, scopes: [], extra: { caller, requestId } };
}

export function identityOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): ToolIdentity {
  const info = extra.authInfo?.extra as Partial<ToolIdentity> | undefined;
  if (!info?.caller || !info.requestId) throw new HTTPException(401, { message: "unauthorized" });
  return { caller: info.caller, requestId: info.requestId };
}

export function ok(value: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * A failure as an MCP tool error carrying the HTTP meaning: 404 no such project, 403 not a member,
 * 400 validation (with issues), 409 conflicts. Unexpected errors are logged and reported generically.
 */
export function toolError(err: unknown, log: Logger): CallToolResult {
  let body: { error: string; status: number; code?: string; issues?: unknown };
  if (err instanceof ZodError) body = { error: "invalid arguments", status: 400, issues: issuesOf(err) };
  else if (err instanceof ValidationError) {
    body = { error: "invalid arguments", status: 400, issues: err.issues };
  } else if (err instanceof HTTPException && err.status < 500) {
    body = { error: err.message, status: err.status };
  } else {
    log.error("mcp tool failed", { err });
    body = { error: "internal server error", status: 500 };
  }
  const detail = body.issues ? `: ${JSON.stringify(body.issues)}` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `${body.status} ${body.error}${detail}` }],
    structuredContent: body,
  };
}
