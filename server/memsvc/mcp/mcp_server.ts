/**
 * One MCP server per session, with memsvc's instructions and its twelve tools. Tools act as the
 * caller of each message (see tool_result.ts), never as whoever opened the session.
 */
import { McpServer } from "../../../internal/mcp/sdk.ts";
import type { Kysely } from "kysely";
import type { Logger } from "../../../internal/log/mod.ts";
import { VERSION } from "../../../internal/version/version.ts";
import type { Embedder } from "../embeddings/mod.ts";
import type { MemoryService } from "../memory/memory_service.ts";
import type { ProjectLookup } from "../memory/scope.ts";
import type { SearchService } from "../memory/search.ts";
import type { VectorBacklog } from "../memory/vector_backlog.ts";
import type { VectorIndex } from "../memory/vector_index.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import { timeToolCalls } from "../metrics/tool_timing.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { registerMemoryTools } from "./memory_tools.ts";
import { registerProjectTools } from "./project_tools.ts";

export interface McpDeps {
  memory: MemoryService;
  search: SearchService;
  db: Kysely<MemsvcDatabase>;
  embedder: Embedder;
  index: VectorIndex;
  /** Vectors of acknowledged writes still being built; the near-duplicate check waits for them. */
  vectors: VectorBacklog;
  projects: ProjectLookup;
  log: Logger;
  metrics: MemsvcMetrics;
  /** The registered tool names (for memory_adoption). */
  toolNames(): string[];
}

export const TOOL_NAMES = [
  "memory_context",
  "memory_capture",
  "memory_adoption",
  "memory_search",
  "memory_update",
  "project_list",
  "project_create",
  "project_delete",
  "project_share",
  "project_unshare",
  "project_activate",
  "project_deactivate",
];

export function createMcpServer(deps: Omit<McpDeps, "toolNames">): McpServer {
  const server = new McpServer({ name: "memsvc", version: VERSION.slice(1) }, { instructions: INSTRUCTIONS });
  const full: McpDeps = { ...deps, toolNames: () => TOOL_NAMES };
  timeToolCalls(server, deps.metrics);
  registerMemoryTools(server, full);
  registerProjectTools(server, full);
  return server;
}
