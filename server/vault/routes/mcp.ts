/**
 * MCP for agent hosts at /api/mcp (Streamable HTTP, internal/mcp): an API key as the bearer, never
 * a cookie. POST an `initialize` to open a session (its id comes back in `Mcp-Session-Id`), then send
 * that header with every request; GET opens the session's server-to-client SSE stream; DELETE ends it.
 * A read-only key's session offers only the reading tools; the notes API refuses it writes as well.
 */
import { Hono } from "hono";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { SessionRegistry } from "../../../internal/mcp/sessions.ts";
import { streamableHttpSpecs } from "../../../internal/mcp/route_specs.ts";
import { handleStreamableHttp } from "../../../internal/mcp/streamable_http.ts";
import type { VaultEnv } from "../env.ts";
import { createVaultMcpServer } from "../mcp/mcp_server.ts";
import { authInfoFor, notesApiFor } from "../mcp/note_tools.ts";
import { mountRoute } from "../openapi/route_spec.ts";
import type { NotesDeps } from "./notes.ts";
import type { PluginManager } from "../plugins/plugin_manager.ts";

export const mcpApi = streamableHttpSpecs({
  tag: "mcp",
  path: "/api/mcp",
  access: "apiKey",
  description: "MCP Streamable HTTP. POST `initialize` to open a session (`Mcp-Session-Id` in the answer), " +
    "then send the header with every request. The tools and their rules come in the initialize result's " +
    "`instructions`; a read-only key gets the reading tools only. Idle sessions end after VAULT_MCP_IDLE_MS.",
}, {
  streamSummary: "MCP: the session's server-to-client SSE stream (note changes arrive as log messages)",
  goneDescription: "the session is gone (idle too long, or ended): initialize again",
});

export function mcpRoutes(
  deps: NotesDeps & { registry: SessionRegistry; plugins?: PluginManager },
): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const api = notesApiFor(deps);
  for (const spec of Object.values(mcpApi)) {
    mountRoute(app, spec, async (c) => {
      const caller = callerOf(c);
      return handleStreamableHttp({
        registry: deps.registry,
        request: c.req.raw,
        // Read through Hono, which keeps it: the key budget (keys/key_budget.ts) may have read it first.
        body: c.req.method === "POST" ? await c.req.text() : undefined,
        userId: caller.userId,
        authInfo: authInfoFor(caller, c.get("requestId")),
        createServer: () => createVaultMcpServer(api, caller.scope ?? "read-write", deps.plugins),
      });
    });
  }
  return app;
}
