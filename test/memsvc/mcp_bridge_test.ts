/**
 * Black-box: `dist/memsvc mcp` as an agent host runs it, a child process speaking MCP on stdio,
 * driven by the MCP SDK's own client, in front of a real Streamable HTTP MCP server (the SDK's,
 * started in this process with sessions and a bearer check).
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startTestUpstream, type TestUpstream } from "../../internal/mcp/testing.ts";
import { baseEnv, binaryPath, runBinary } from "../harness/binary.ts";

const TOKEN = "nm_bridge-blackbox-token-0123456789abcdef";

let upstream: TestUpstream;
beforeEach(() => {
  upstream = startTestUpstream({ token: TOKEN });
});
afterEach(() => upstream.close());

function bridgeTransport(env: Record<string, string> = {}) {
  return new StdioClientTransport({
    command: binaryPath("memsvc"),
    args: ["mcp"],
    env: { MEMSVC_BASE_URL: upstream.baseUrl, MEMSVC_TOKEN: TOKEN, ...env },
    stderr: "pipe",
  });
}

/** A connected SDK client, with the log messages the server sent it. */
async function connect() {
  const client = new Client({ name: "blackbox", version: "1.0.0" });
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  await client.connect(bridgeTransport());
  return { client, logs };
}

/** The text of a tool result's first content block. */
function textOf(result: Record<string, unknown>): string | undefined {
  return (result.content as { text?: string }[] | undefined)?.[0]?.text;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("memsvc mcp", () => {
  it("carries initialize, tools/list and tools/call, and the server's notifications", async () => {
    const { client, logs } = await connect();
    try {
      assert.equal(client.getServerVersion()?.name, "test-upstream");
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["echo", "interrupted", "progress", "slow"]);
      const echo = await client.callTool({ name: "echo", arguments: { text: "over stdio" } });
      assert.equal(textOf(echo), "echo: over stdio");

      // Notifications on the call's own response stream: progress and a log message.
      const progress: number[] = [];
      const done = await client.callTool({ name: "progress", arguments: { steps: 3 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      assert.equal(textOf(done), "did 3 steps");
      assert.deepEqual(progress, [1, 2, 3]);
      await until(() => logs.includes("finished 3 steps"), "the tool's log message");

      // A message the server sends on its own, outside any request, travels on the GET stream.
      await until(() => upstream.seen.some((r) => r.method === "GET"), "the bridge's GET stream");
      await upstream.broadcast("server-initiated");
      await until(() => logs.includes("server-initiated"), "the server-initiated message");
    } finally {
      await client.close();
    }
  });

  it("re-initialises transparently when the server-side session expires", async () => {
    const { client } = await connect();
    try {
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "one" } })), "echo: one");
      const [before] = upstream.sessionIds();
      upstream.forgetSessions(); // the next request with the old session id gets 404
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "two" } })), "echo: two");
      const initializes = upstream.seen.filter((r) =>
        (r.body as { method?: string })?.method === "initialize"
      );
      assert.equal(initializes.length, 2);
      const [after] = upstream.sessionIds();
      assert.ok(after && after !== before, "a new session was opened");
    } finally {
      await client.close();
    }
  });

  it("turns a refused token into a JSON-RPC error that names HTTP 401", async () => {
    const client = new Client({ name: "blackbox", version: "1.0.0" });
    const transport = bridgeTransport({ MEMSVC_TOKEN: "nm_revoked-token-0123456789" });
    await assert.rejects(client.connect(transport), (err: Error) => {
      assert.match(err.message, /HTTP 401/);
      assert.match(err.message, /revoked or is invalid/);
      assert.doesNotMatch(err.message, /revoked-token-0123456789/);
      return true;
    });
    await client.close();
  });

  it("exits 0 when stdin ends, after answering the calls still in flight, and ends the session", async () => {
    const child = spawn(binaryPath("memsvc"), ["mcp"], {
      env: baseEnv({ MEMSVC_BASE_URL: upstream.baseUrl, MEMSVC_TOKEN: TOKEN }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const frames = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: { ms: 500 } } },
    ];
    child.stdin.end(frames.map((f) => JSON.stringify(f) + "\n").join(""));

    assert.equal(await exited, 0);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((m) => m.id), [1, 2], "stdout holds exactly the two responses");
    assert.equal(lines[1].result.content[0].text, "slept 500 ms");
    assert.equal(upstream.seen.at(-1)!.method, "DELETE");
    assert.equal(upstream.deleted.length, 1);
  });

  it("exits 2 naming each missing variable, and honours --token-env", async () => {
    const missing = await runBinary("memsvc", ["mcp"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /MEMSVC_BASE_URL is required but not set/);
    assert.match(missing.stderr, /MEMSVC_TOKEN is required but not set/);
    assert.equal(missing.stdout, "");

    const other = await runBinary("memsvc", ["mcp", "--token-env", "MY_TOKEN"], {
      env: { MEMSVC_BASE_URL: upstream.baseUrl, MEMSVC_TOKEN: TOKEN },
    });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /MY_TOKEN is required but not set/);
  });

  it("--help says which hosts run it and how", async () => {
    const help = await runBinary("memsvc", ["mcp", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Claude Desktop/);
    assert.match(help.stdout, /"args": \["mcp"\]/);
  });
});
