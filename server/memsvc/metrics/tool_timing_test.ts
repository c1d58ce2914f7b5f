import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "../../../internal/mcp/sdk.ts";
import { MemsvcMetrics } from "./registry.ts";
import { timeToolCalls } from "./tool_timing.ts";

test("every tool registered after the hook records its calls, tool errors and throws as errors", async () => {
  const metrics = new MemsvcMetrics();
  const server = new McpServer({ name: "t", version: "1.0.0" });
  timeToolCalls(server, metrics);
  server.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("refuse", { inputSchema: {} }, () => ({ isError: true, content: [] }));
  server.registerTool("crash", { inputSchema: {} }, () => {
    throw new Error("crash");
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "c", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const echoed = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    assert.deepEqual(echoed.content, [{ type: "text", text: "hi" }], "arguments and result pass through");
    await client.callTool({ name: "echo", arguments: { text: "again" } });
    await client.callTool({ name: "refuse", arguments: {} });
    assert.equal((await client.callTool({ name: "crash", arguments: {} })).isError, true);
  } finally {
    await client.close();
  }
  const summary = (name: string) => {
    const s = metrics.tools().get(name)!;
    return [s.latency.count, s.ok, s.errors];
  };
  assert.deepEqual(summary("echo"), [2, 2, 0]);
  assert.deepEqual(summary("refuse"), [1, 0, 1]);
  assert.deepEqual(summary("crash"), [1, 0, 1]);
});
