import { renderDocument } from "./config_format.ts";
import { type AgentHost, buildEntry, type McpServer, type Transport } from "./hosts.ts";

/** Our entry as a user pastes it by hand: the smallest document in the host's format that holds it. */
export function renderEntry(host: AgentHost, server: McpServer, transport?: Transport): string {
  return renderDocument(host, server.name, buildEntry(host, server, transport));
}
