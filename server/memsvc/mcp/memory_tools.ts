/**
 * The memory tools: memory_context, memory_capture, memory_adoption, memory_search and
 * memory_update. Descriptions are imperative on purpose: hosts show them to the model, and agents
 * that are not told when to call a memory tool rarely do.
 */
import type { McpServer } from "../../../internal/mcp/sdk.ts";
import { z } from "zod";
import { VERSION } from "../../../internal/version/version.ts";
import { getActiveProject } from "../projects/mod.ts";
import { LIMITS } from "../memory/limits.ts";
import { metadataSchema } from "../memory/schemas.ts";
import { partitionKey, writeScope } from "../memory/scope.ts";
import { rejectionReason } from "../memory/worthiness_gate.ts";
import { INSTRUCTIONS_SHA256 } from "./instructions.ts";
import type { McpDeps } from "./mcp_server.ts";
import { identityOf, ok, toolError } from "./tool_result.ts";

/** Cosine at or above which a capture is reported as a near-duplicate instead of stored. */
export const NEAR_DUPLICATE_COSINE = 0.92;
const CHARS_PER_TOKEN = 4;

const project = z.string().min(1).max(200).optional()
  .describe("Project id or name; defaults to the active project");
const includes = z.array(z.string().min(1)).max(LIMITS.maxIncludes).optional();

export const REQUIRED_TOOLS = ["memory_context", "memory_capture"];

export function registerMemoryTools(server: McpServer, deps: McpDeps) {
  registerContextTool(server, deps);
  registerCaptureTool(server, deps);
  registerSearchTool(server, deps);
  registerUpdateTool(server, deps);
  registerAdoptionTool(server, deps);
}

/** memory_context: the relevant and recent memories for a task, within a token budget. */
function registerContextTool(server: McpServer, deps: McpDeps) {
  const { search, memory, db, log } = deps;
  server.registerTool("memory_context", {
    title: "Load relevant memory",
    description: "CALL THIS FIRST in every session and before answering any substantive request. " +
      "Pass the task at hand; returns relevant memories, recent entries and the active project, within a token budget.",
    inputSchema: {
      task: z.string().min(1).max(LIMITS.maxQueryChars).describe(
        "What the user asked or what you are about to do",
      ),
      project,
      maxTokens: z.number().int().min(100).max(16_000).optional().describe(
        "Budget for the returned memories (default 1500)",
      ),
    },
  }, async (args, extra) => {
    try {
      const { caller } = identityOf(extra);
      const budget = (args.maxTokens ?? 1500) * CHARS_PER_TOKEN;
      const [found, recent, active] = await Promise.all([
        search.search(caller, { query: args.task, project: args.project, limit: 10 }),
        memory.recent(caller, { project: args.project, limit: 5 }),
        getActiveProject(db, caller.userId),
      ]);
      const seen = new Set<string>();
      const memories: {
        id: string;
        content: string;
        project: string | null;
        source_type: string | null;
        created_at: string;
        score?: number;
        why: string;
      }[] = [];
      let used = 0;
      let truncated = false;
      for (const [why, list] of [["relevant", found.results], ["recent", recent.entries]] as const) {
        for (const e of list) {
          if (seen.has(e.id)) continue;
          if (used + e.content.length > budget) {
            truncated = true;
            continue;
          }
          seen.add(e.id);
          used += e.content.length;
          memories.push({
            id: e.id,
            content: e.content,
            project: e.project,
            source_type: e.source_type,
            created_at: e.created_at,
            ...("score" in e ? { score: e.score as number } : {}),
            why,
          });
        }
      }
      return ok({
        activeProject: active ? { id: active.id, name: active.name } : null,
        memories,
        tokenEstimate: Math.ceil(used / CHARS_PER_TOKEN),
        truncated,
        ...(found.degraded ? { degraded: true } : {}),
      });
    } catch (err) {
      return toolError(err, log);
    }
  });
}

/** memory_capture: one durable fact, refused when it is filler or a near-duplicate of a stored one. */
function registerCaptureTool(server: McpServer, deps: McpDeps) {
  const { memory, embedder, index, vectors, projects, log, metrics } = deps;
  server.registerTool("memory_capture", {
    title: "Capture a durable fact",
    description:
      "CALL THIS whenever you learn a durable fact worth remembering across sessions: a preference, " +
      "decision, convention, setup or deployment fact, root cause, person or schedule. One self-contained fact per " +
      "call. NEVER include secrets. Conversational filler and near-duplicates of existing memories are refused.",
    inputSchema: {
      content: z.string().min(1).max(LIMITS.maxContentChars).describe(
        "The fact, as one self-contained sentence or two",
      ),
      project,
      source_type: z.string().min(1).max(LIMITS.maxSourceTypeChars).optional()
        .describe("chat, email, code-review, doc, inference, observation, system or manual"),
      captured_from: z.string().max(LIMITS.maxCapturedFromChars).optional().describe("Where it came from"),
      confidence: z.number().min(0).max(1).optional(),
      metadata: metadataSchema.optional(),
      session_id: z.string().trim().min(1).max(LIMITS.maxSessionIdChars).optional().describe(
        "The conversation this comes from; facts of one session are recalled with their neighbours",
      ),
    },
  }, async (args, extra) => {
    try {
      const { caller } = identityOf(extra);
      const rejected = rejectionReason(args.content);
      // Writes answered here, before memory.remember, are counted here.
      if (rejected) {
        metrics.recordRemember("rejected");
        return ok({ id: null, rejected });
      }
      // A near-duplicate (same fact, other words) is pointed out instead of stored twice.
      const scope = await writeScope(projects, caller, args);
      await vectors.settled();
      const [[vector]] = await Promise.all([embedder.embed([args.content.trim()]), index.sync()]);
      const approximate = index.nearest(vector!, [
        partitionKey({ user_id: scope.userId, project_id: scope.projectId, namespace: scope.namespace }),
      ], 3);
      // The index's cosines are int8 approximations: decide on the exact ones.
      const [nearest] = await index.rescore(vector!, approximate);
      if (nearest && nearest.score >= NEAR_DUPLICATE_COSINE) {
        const existing = await memory.get(caller, nearest.id).catch(() => undefined);
        if (existing && existing.content !== args.content.trim()) {
          metrics.recordRemember("deduplicated");
          return ok({
            id: existing.id,
            nearDuplicate: true,
            similarity: Math.round(nearest.score * 1000) / 1000,
            existing: existing.content,
            hint: "Not stored. If the new fact corrects the existing one, call memory_update with its id.",
          });
        }
      }
      return ok(await memory.remember(caller, { ...args, force: false }));
    } catch (err) {
      return toolError(err, log);
    }
  });
}

/** memory_search: search by meaning and keywords mid-task. */
function registerSearchTool(server: McpServer, deps: McpDeps) {
  const { search, log } = deps;
  server.registerTool("memory_search", {
    title: "Search memory",
    description: "Search long-term memory by meaning and keywords. Use it mid-task to look something up; " +
      "prefer memory_context at the start of a task.",
    inputSchema: {
      query: z.string().min(1).max(LIMITS.maxQueryChars),
      project,
      includeProjects: includes.describe("Extra projects (ids or names) to search as well"),
      includeNamespaces: includes.describe("Extra namespaces to search as well"),
      limit: z.number().int().min(1).max(LIMITS.maxSearchLimit).optional(),
      context: z.number().int().min(0).max(LIMITS.maxSearchContext).optional().describe(
        "With each result, this many turns before and after it in its conversation (session_id)",
      ),
    },
  }, async (args, extra) => {
    try {
      return ok(await search.search(identityOf(extra).caller, args));
    } catch (err) {
      return toolError(err, log);
    }
  });
}

/** memory_update: correct a memory in place, by id. */
function registerUpdateTool(server: McpServer, deps: McpDeps) {
  const { memory, log } = deps;
  server.registerTool("memory_update", {
    title: "Correct a memory",
    description: "Update an existing memory in place (by id) when a fact changed or was wrong, instead of " +
      "capturing a contradicting one. Keeps its id, hit count and links.",
    inputSchema: {
      id: z.string().min(1).max(100),
      content: z.string().min(1).max(LIMITS.maxContentChars).optional(),
      metadata: metadataSchema.optional(),
      source_type: z.string().min(1).max(LIMITS.maxSourceTypeChars).optional(),
      captured_from: z.string().max(LIMITS.maxCapturedFromChars).optional(),
      confidence: z.number().min(0).max(1).optional(),
    },
  }, async ({ id, ...changes }, extra) => {
    try {
      if (Object.keys(changes).length === 0) {
        return toolError(
          new z.ZodError([{
            code: "custom",
            path: [],
            message: "give at least one field to change",
            input: changes,
          }]),
          log,
        );
      }
      return ok(await memory.update(identityOf(extra).caller, id, changes));
    } catch (err) {
      return toolError(err, log);
    }
  });
}

/** memory_adoption: how the integration looks from the server, and how to refresh a stale host. */
function registerAdoptionTool(server: McpServer, deps: McpDeps) {
  const { log } = deps;
  server.registerTool("memory_adoption", {
    title: "Check the memory integration",
    description:
      "CALL THIS when memory tools seem missing or stale. Returns the tool list, the SHA-256 of the " +
      "server instructions, the tools you are required to use and how to refresh a stale client.",
    inputSchema: {},
  }, (_args, extra) => {
    try {
      identityOf(extra);
      return ok({
        server: { name: "memsvc", version: VERSION },
        tools: deps.toolNames(),
        instructionsSha256: INSTRUCTIONS_SHA256,
        requiredTools: REQUIRED_TOOLS,
        protocol: "Call memory_context first in every session; capture durable facts with memory_capture.",
        refresh: {
          "claude-code": "Run /mcp and reconnect the memsvc server, or restart Claude Code.",
          "claude-desktop":
            "Quit and reopen Claude Desktop; check the memsvc toggle in the tools menu is on.",
          codex: "Restart the Codex CLI session.",
          cursor: "Open Settings › MCP and toggle memsvc off and on.",
          generic:
            "Restart the host or reconnect the MCP server; hosts cache tools and instructions per session.",
        },
      });
    } catch (err) {
      return toolError(err, log);
    }
  });
}
