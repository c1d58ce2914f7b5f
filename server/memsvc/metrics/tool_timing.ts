import type { CallToolResult, McpServer } from "../../../internal/mcp/sdk.ts";
import type { MemsvcMetrics } from "./registry.ts";

type RegisterTool = McpServer["registerTool"];
type ToolHandler = (...args: unknown[]) => CallToolResult | Promise<CallToolResult>;

/**
 * Makes every tool registered on `server` from now on record its duration and outcome (a tool
 * error counts as an error) under the tool's name. Called once, before the tools are registered,
 * so no tool can be left out.
 */
export function timeToolCalls(server: McpServer, metrics: MemsvcMetrics): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => ReturnType<RegisterTool>;
  server.registerTool =
    ((name: string, config: unknown, handler: ToolHandler) =>
      register(name, config, async (...args: unknown[]) => {
        const started = performance.now();
        let ok = false;
        try {
          const result = await handler(...args);
          ok = !result.isError;
          return result;
        } finally {
          metrics.recordTool(name, performance.now() - started, ok);
        }
      })) as RegisterTool;
}
