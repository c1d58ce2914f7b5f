/**
 * Black-box: dist/vault-mcp as a stdio MCP server for the MCP SDK's own client, bridged to a real
 * Streamable HTTP server built from the SDK's server classes (internal/mcp/testing.ts): sessions, a
 * bearer check, resumable event ids, session expiry and a server notification on the GET stream.
 * test/vault/mcp_test.ts runs the shim against `dist/vault serve` itself.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startTestUpstream, type TestUpstream } from "../../internal/mcp/testing.ts";
import { listen } from "../../internal/platform/mod.ts";
import { spawn } from "node:child_process";
import { baseEnv, binaryPath, runBinary } from "../harness/binary.ts";
import { Client, StdioClientTransport } from "../harness/mcp_client.ts";

const TOKEN = "vault_shim-test-key-0123456789abcdefghijklmnopqrstu";

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The SDK's client on `dist/vault-mcp`, with the shim's stderr collected. */
async function connect(env: Record<string, string>) {
  const client = new Client({ name: "vault-mcp-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: binaryPath("vault-mcp"),
    args: [],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d));
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("vault-mcp against a Streamable HTTP MCP server", () => {
  let upstream: TestUpstream;
  const paths: string[] = [];

  before(() => {
    upstream = startTestUpstream({
      token: TOKEN,
      resumable: true,
      intercept: (req) => {
        paths.push(new URL(req.url).pathname);
        return undefined;
      },
    });
  });
  after(() => upstream.close());

  it("forwards every frame to <VAULT_URL>/api/mcp with the key, the session id and the protocol version", async () => {
    const seenBefore = upstream.seen.length;
    const { client, stderr } = await connect({
      VAULT_URL: upstream.baseUrl,
      VAULT_TOKEN: TOKEN,
      VAULT_DEBUG: "1",
    });
    try {
      assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "hi" } })), "echo: hi");
      const seen = upstream.seen.slice(seenBefore);
      assert.ok(paths.every((p) => p === "/api/mcp"), paths.join(" "));
      assert.ok(seen.every((r) => r.headers.get("authorization") === `Bearer ${TOKEN}`));
      assert.equal((seen[0]!.body as { method: string }).method, "initialize");
      assert.equal(seen[0]!.headers.get("mcp-session-id"), null);
      // Queued until initialize was answered: every later frame carries the session and the version.
      const [sessionId] = upstream.sessionIds();
      for (const r of seen.slice(1)) {
        assert.equal(r.headers.get("mcp-session-id"), sessionId, `${r.method} ${JSON.stringify(r.body)}`);
        assert.ok(r.headers.get("mcp-protocol-version"), "MCP-Protocol-Version after negotiation");
      }

      // A notification the server sends outside any request arrives through the GET stream.
      await until("the GET stream", () => upstream.seen.slice(seenBefore).some((r) => r.method === "GET"));
      const received = new Promise<string>((resolve) =>
        client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(String(n.params.data)))
      );
      await upstream.broadcast("note changed");
      assert.equal(await received, "note changed");

      // The stream breaks: the shim reconnects (after its first backoff) with Last-Event-ID.
      const getsBefore = upstream.seen.filter((r) => r.method === "GET").length;
      upstream.dropServerStreams();
      await until(
        "a resumed GET stream",
        () => upstream.seen.filter((r) => r.method === "GET").length > getsBefore,
      );
      assert.ok(upstream.seen.filter((r) => r.method === "GET").at(-1)!.headers.get("last-event-id"));
      const again = new Promise<string>((resolve) =>
        client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(String(n.params.data)))
      );
      await upstream.broadcast("after the break");
      assert.equal(await again, "after the break");

      // The server forgets the session: the shim replays initialize, and the call still succeeds.
      upstream.forgetSessions();
      const initializesBefore = upstream.seen.filter((r) =>
        (r.body as { method?: string })?.method === "initialize"
      )
        .length;
      assert.equal(
        text(await client.callTool({ name: "echo", arguments: { text: "again" } })),
        "echo: again",
      );
      const initializes = upstream.seen.filter((r) =>
        (r.body as { method?: string })?.method === "initialize"
      );
      assert.equal(initializes.length, initializesBefore + 1);
      assert.equal(
        initializes.at(-1)!.headers.get("mcp-session-id"),
        null,
        "a new session, without the old id",
      );
      assert.equal(upstream.sessionIds().length, 1);
      assert.notEqual(upstream.sessionIds()[0], sessionId);
    } finally {
      const open = upstream.sessionIds();
      await client.close();
      // stdin ended: the shim drains, ends the session with DELETE, and exits.
      await until("DELETE", () => open.every((id) => upstream.deleted.includes(id)));
    }
    // VAULT_DEBUG=1: structured JSON lines on stderr, never the key.
    const lines = stderr().trim().split("\n").filter(Boolean);
    assert.ok(lines.length > 0, "debug logs");
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.ok(!stderr().includes(TOKEN));
  });

  it("queues frames written all at once behind initialize, and drains them before DELETE at end of input", async () => {
    const deletedBefore = upstream.deleted.length;
    const child = spawn(binaryPath("vault-mcp"), [], {
      env: baseEnv({ VAULT_URL: upstream.baseUrl, VAULT_TOKEN: TOKEN }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
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
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: { ms: 300 } } },
    ];
    // One write, then stdin closes at once: the reference shim raced these and cut the slow call.
    child.stdin.end(frames.map((f) => JSON.stringify(f)).join("\n") + "\n");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0);
    const replies = stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(replies.map((r) => r.id), [1, 2], stdout);
    assert.equal(replies[1].result.content[0].text, "slept 300 ms");
    assert.equal(upstream.deleted.length, deletedBefore + 1, "the session was ended with DELETE");
  });

  it("does not poll a server without a GET stream (405)", async () => {
    const stateless = startTestUpstream({ token: TOKEN, noServerStream: true, jsonResponses: true });
    try {
      const { client } = await connect({ VAULT_URL: stateless.baseUrl, VAULT_TOKEN: TOKEN });
      assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "x" } })), "echo: x");
      await until("the GET", () => stateless.seen.some((r) => r.method === "GET"));
      // The first retry would come after 0.5 s: wait past two of them.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      assert.equal(stateless.seen.filter((r) => r.method === "GET").length, 1);
      await client.close();
    } finally {
      await stateless.close();
    }
  });

  it("names the 401 and an unreachable vault in the error", async () => {
    await assert.rejects(
      connect({ VAULT_URL: upstream.baseUrl, VAULT_TOKEN: "vault_revoked" }),
      /HTTP 401/,
    );
    const closed = listen(() => new Response(), { hostname: "127.0.0.1", port: 0 });
    const port = closed.port;
    await closed.close();
    await assert.rejects(
      connect({ VAULT_URL: `http://127.0.0.1:${port}`, VAULT_TOKEN: TOKEN }),
      /cannot reach/,
    );
  });

  it("refuses a missing or malformed environment with exit 2 and nothing on stdout", async () => {
    const res = await runBinary("vault-mcp", [], { env: { VAULT_TOKEN: "not-a-key" } });
    assert.equal(res.code, 2);
    assert.equal(res.stdout, "");
    assert.match(res.stderr, /VAULT_URL/);
    assert.match(res.stderr, /VAULT_TOKEN/);
  });
});
