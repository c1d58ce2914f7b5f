/**
 * MCP plumbing shared by the binaries: the stdio-to-HTTP bridge that `memsvc mcp` and `vault-mcp`
 * run for agent hosts that only start stdio MCP servers.
 *
 * @example
 * await runStdioBridge({
 *   url: `${baseUrl}/mcp`,
 *   token: process.env.MEMSVC_TOKEN!,
 *   log: debug ? createLogger({ level: "debug" }) : silentLogger,
 * });
 */
export { runStdioBridge, type StdioBridgeOptions } from "./bridge.ts";
