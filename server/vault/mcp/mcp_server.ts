/**
 * One MCP server per session: the vault's instructions, the note tools the key may use and the active
 * plugins' routes as tools. It can
 * log to the client, which is how a session hears about note changes (notify.ts).
 */
import { McpServer } from "../../../internal/mcp/sdk.ts";
import { VERSION } from "../../../internal/version/version.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { type NotesApi, registerNoteTools } from "./note_tools.ts";
import { registerPluginTools } from "./plugin_tools.ts";
import type { PluginManager } from "../plugins/plugin_manager.ts";

export function createVaultMcpServer(
  api: NotesApi,
  scope: "read" | "read-write",
  plugins?: PluginManager,
): McpServer {
  const server = new McpServer(
    { name: "vault", version: VERSION.replace(/^v/, "") },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  registerNoteTools(server, api, scope);
  if (plugins) registerPluginTools(server, plugins, scope);
  return server;
}
