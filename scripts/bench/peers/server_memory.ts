/**
 * Peer: @modelcontextprotocol/server-memory, the reference MCP memory server, under node over
 * stdio, driven by the MCP SDK client exactly as an agent host would. Each memory is one entity
 * whose only observation is the text; search is `search_nodes`, a case-insensitive substring match
 * over names, types and observations (no ranking: "top 10" is the first ten it returns).
 * It reads and rewrites its whole JSONL file on every call, so its sizes are bounded by the caller.
 */
import { createRequire } from "node:module";
import { Client, StdioClientTransport } from "../../../test/harness/mcp_client.ts";

export interface ServerMemoryPeer {
  /** Adds entities (name → text), one tools/call for the whole batch. */
  add(items: { name: string; text: string }[]): Promise<void>;
  /** Names of the entities search_nodes returns, in its order. */
  search(query: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startServerMemory(memoryFile: string): Promise<ServerMemoryPeer> {
  const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const client = new Client({ name: "memsvc-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: "node",
      args: [entry],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MEMORY_FILE_PATH: memoryFile },
      stderr: "pipe",
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as {
      isError?: boolean;
      content: { type: string; text?: string }[];
    };
    const text = result.content.find((c) => c.type === "text")?.text ?? "";
    if (result.isError) throw new Error(`server-memory ${name}: ${text}`);
    return text;
  };
  return {
    async add(items) {
      await call("create_entities", {
        entities: items.map((i) => ({ name: i.name, entityType: "memory", observations: [i.text] })),
      });
    },
    async search(query) {
      const graph = JSON.parse(await call("search_nodes", { query })) as { entities: { name: string }[] };
      return graph.entities.map((e) => e.name);
    },
    close: () => client.close(),
  };
}
