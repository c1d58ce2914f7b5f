/**
 * Plugin routes as MCP tools (the reference's dynamicTools.ts): every route of an active plugin, as
 * `<plugin id>_<route name>` (the name the plugin gave, else method and path), called as the session's
 * user. A read-only key is offered the GET routes only. The set follows the plugins while the session
 * lasts: a plugin enabled, disabled or stopped adds or removes its tools, and the SDK tells the client
 * (notifications/tools/list_changed).
 */
import { z } from "zod";
import type { CallToolResult, McpServer } from "../../../internal/mcp/sdk.ts";
import type { PluginManager, PluginRoute } from "../plugins/plugin_manager.ts";
import { TOOL_NAMES, type ToolCaller } from "./note_tools.ts";

type Extra = { authInfo?: { extra?: Record<string, unknown> } };
type RegisteredTool = ReturnType<McpServer["registerTool"]>;

export function pluginToolName(pluginId: string, route: { method: string; path: string; name?: string }) {
  const name = route.name ?? `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+/g, "_")}`;
  return `${pluginId}_${name}`.replace(/[^A-Za-z0-9_-]/g, "_").replace(/_+$/, "").slice(0, 64);
}

function register(
  server: McpServer,
  plugins: PluginManager,
  { plugin, name: pluginName, route }: { plugin: string; name: string; route: PluginRoute },
  toolName: string,
): RegisteredTool {
  return server.registerTool(
    toolName,
    {
      description: `${route.description ?? `${route.method} ${route.path}`} (plugin ${pluginName})`,
      inputSchema: {
        query: z.record(z.string(), z.string()).optional().describe("query parameters of the route"),
        body: z.unknown().optional().describe("the JSON body (not for GET)"),
      },
    },
    async (
      args: { query?: Record<string, string>; body?: unknown },
      extra: Extra,
    ): Promise<CallToolResult> => {
      const who = extra.authInfo?.extra as ToolCaller | undefined;
      if (!who?.caller) return { isError: true, content: [{ type: "text", text: "401 unauthorized" }] };
      try {
        const res = await plugins.callRoute(plugin, {
          method: route.method,
          path: route.path,
          query: args.query ?? {},
          body: route.method === "GET" ? null : args.body ?? null,
        }, who.caller);
        const text = JSON.stringify(res.body, null, 2);
        const structured = res.body && typeof res.body === "object" && !Array.isArray(res.body)
          ? { structuredContent: res.body as Record<string, unknown> }
          : {};
        return {
          isError: res.status >= 400,
          content: [{ type: "text", text: text ?? "null" }],
          ...structured,
        };
      } catch (err) {
        return { isError: true, content: [{ type: "text", text: (err as Error).message }] };
      }
    },
  );
}

export function registerPluginTools(server: McpServer, plugins: PluginManager, scope: "read" | "read-write") {
  const registered = new Map<string, RegisteredTool>();
  const sync = () => {
    const wanted = new Map<string, ReturnType<PluginManager["activeRoutes"]>[number]>();
    for (const entry of plugins.activeRoutes()) {
      if (scope === "read" && entry.route.method !== "GET") continue;
      const name = pluginToolName(entry.plugin, entry.route);
      // The vault's own tools keep their names (a plugin "list" with a route "notes" is not list_notes).
      if (!wanted.has(name) && !TOOL_NAMES.includes(name)) wanted.set(name, entry);
    }
    for (const [name, tool] of registered) {
      if (!wanted.has(name)) {
        tool.remove();
        registered.delete(name);
      }
    }
    for (const [name, entry] of wanted) {
      if (!registered.has(name)) registered.set(name, register(server, plugins, entry, name));
    }
  };
  sync();
  const stop = plugins.onRoutesChanged(sync);
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stop();
    closed?.();
  };
}
