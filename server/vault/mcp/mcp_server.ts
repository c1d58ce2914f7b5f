/**
 * One MCP server per session: the vault's instructions and the note tools the key may use. It can
 * log to the client, which is how a session hears about note changes (notify.ts).
 */
import { McpServer } from "../../../internal/mcp/sdk.ts";
import { VERSION } from "../../../internal/version/version.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { type NotesApi, registerNoteTools } from "./note_tools.ts";

export function createVaultMcpServer(api: NotesApi, scope: "read" | "read-write"): McpServer {
  const server = new McpServer(
    { name: "vault", version: VERSION.replace(/^v/, "") },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  registerNoteTools(server, api, scope);
  return server;
}
