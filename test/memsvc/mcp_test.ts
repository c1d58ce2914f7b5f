/**
 * Black-box: memsvc's MCP surface with the SDK's own client, over Streamable HTTP (/mcp) and the
 * legacy SSE transport (/mcp/sse + /mcp/messages): the twelve tools end to end, session ownership,
 * the per-user SSE cap, idle reaping and keep-alives.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client as HttpClient } from "../harness/http_client.ts";
import { type Client, connectHttp, connectSse, connectStdioBridge } from "../harness/mcp_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const ADA = { email: "ada@example.test", password: "ada-Pa55word-123", name: "Ada" };
const BOB = { email: "bob@example.test", password: "bob-Pa55word-123", name: "Bob" };
const TOOLS = [
  "memory_adoption",
  "memory_capture",
  "memory_context",
  "memory_search",
  "memory_update",
  "project_activate",
  "project_create",
  "project_deactivate",
  "project_delete",
  "project_list",
  "project_share",
  "project_unshare",
];

function serverEnv(home: string, extra: Record<string, string> = {}) {
  return memsvcEnv(home, { admin: ADMIN, extra });
}

/** Creates Ada and Bob and returns an nm_ API token for each. */
async function usersWithTokens(server: RunningBinary): Promise<{ ada: string; bob: string }> {
  const signIn = async (who: { email: string; password: string }) => {
    const c = new HttpClient(server.url, { origin: server.url });
    assert.equal((await c.post("/api/auth/sign-in/email", who)).status, 200);
    return c;
  };
  const admin = await signIn(ADMIN);
  for (const u of [ADA, BOB]) await admin.post("/api/auth/admin/create-user", { ...u, role: "user" });
  const token = async (who: { email: string; password: string }) =>
    (await (await signIn(who)).post("/v1/me/tokens", { label: "mcp-test" })).body.token as string;
  return { ada: await token(ADA), bob: await token(BOB) };
}

/** Opens GET /mcp/sse by hand and returns the session id from its `endpoint` event. */
async function openRawSse(baseUrl: string, bearer: string, signal: AbortSignal): Promise<string> {
  const res = await fetch(`${baseUrl}/mcp/sse`, { headers: { authorization: `Bearer ${bearer}` }, signal });
  const reader = res.body!.getReader();
  let text = "";
  for (;;) {
    const id = /sessionId=([0-9a-f-]+)/.exec(text)?.[1];
    if (id) return id;
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before the endpoint event: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

// deno-lint-ignore no-explicit-any
type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

describe("memsvc MCP", () => {
  let home: string;
  let server: RunningBinary;
  let tokens: { ada: string; bob: string };
  let ada: Client;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-mcp-"));
    server = await startBinary("memsvc", ["serve"], { cwd: home, env: serverEnv(home) });
    tokens = await usersWithTokens(server);
    ada = await connectHttp(server.url, tokens.ada);
  });
  after(async () => {
    await ada?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("initializes over /mcp with instructions and lists exactly the twelve tools, with schemas", async () => {
    assert.match(ada.getInstructions() ?? "", /memory_context/);
    assert.match(ada.getInstructions() ?? "", /NEVER store secrets/);
    const { tools } = await ada.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.ok((t.description ?? "").length > 20, t.name);
    }
  });

  it("memory tools: capture (gate, dedupe, near-duplicate), context, search, update, adoption", async () => {
    const fact = "The build server runs Debian 12 with 64 GB of RAM and two NVMe disks.";
    const captured = await call(ada, "memory_capture", { content: fact, source_type: "chat" });
    assert.ok(!captured.isError, JSON.stringify(captured));
    const id = captured.structuredContent.id;
    assert.match(id, /^m_/);
    assert.deepEqual((await call(ada, "memory_capture", { content: "Thanks." })).structuredContent, {
      id: null,
      rejected: "conversational filler — not durable knowledge",
    });
    assert.equal((await call(ada, "memory_capture", { content: fact })).structuredContent.deduplicated, true);
    const near = await call(ada, "memory_capture", {
      content: "The build server runs Debian 12 with 64 GB of RAM and two NVMe disks!",
    });
    assert.equal(near.structuredContent.nearDuplicate, true, JSON.stringify(near.structuredContent));
    assert.equal(near.structuredContent.id, id);

    const context = await call(ada, "memory_context", {
      task: "How much memory does the build server have?",
    });
    assert.ok(context.structuredContent.memories.some((m: { id: string }) => m.id === id));
    assert.equal(context.structuredContent.activeProject, null);

    const found = await call(ada, "memory_search", { query: "NVMe build server" });
    assert.equal(found.structuredContent.results[0].id, id);

    const updated = await call(ada, "memory_update", {
      id,
      content: "The build server runs Debian 13 with 128 GB of RAM.",
    });
    assert.equal(updated.structuredContent.id, id);
    assert.match(updated.structuredContent.content, /128 GB/);
    const missing = await call(ada, "memory_update", { id: "m_000000000000000000000000", confidence: 0.5 });
    assert.equal(missing.isError, true);
    assert.equal(missing.structuredContent.status, 404);
    const invalid = await call(ada, "memory_capture", {
      content: "a fact with bad metadata",
      metadata: { ["k".repeat(65)]: 1 },
    });
    assert.equal(invalid.isError, true);

    const adoption = await call(ada, "memory_adoption");
    assert.deepEqual([...adoption.structuredContent.tools].sort(), TOOLS);
    const sha = createHash("sha256").update(ada.getInstructions() ?? "").digest("hex");
    assert.equal(adoption.structuredContent.instructionsSha256, sha);
    assert.deepEqual(adoption.structuredContent.requiredTools, ["memory_context", "memory_capture"]);
  });

  it("project tools: create, list, share, activate, scoped capture, unshare, deactivate, delete, with errors", async () => {
    const created = await call(ada, "project_create", { name: "Orion" });
    assert.ok(!created.isError, JSON.stringify(created));
    const pid = created.structuredContent.id;
    assert.equal((await call(ada, "project_create", { name: "ｏｒｉｏｎ" })).structuredContent.status, 409);
    const listed = await call(ada, "project_list");
    assert.ok(listed.structuredContent.projects.some((p: { id: string }) => p.id === pid));
    assert.ok(!(await call(ada, "project_share", { project: "Orion", email: BOB.email })).isError);
    assert.equal(
      (await call(ada, "project_share", { project: "Orion", email: "nobody@example.test" })).structuredContent
        .status,
      404,
    );

    const activated = await call(ada, "project_activate", { project: "Orion" });
    assert.equal(activated.structuredContent.project.id, pid);
    const inProject = await call(ada, "memory_capture", {
      content: "Orion's API gateway runs on port 8443 behind Envoy.",
    });
    const ctx = await call(ada, "memory_context", { task: "Orion gateway port" });
    assert.equal(ctx.structuredContent.activeProject.id, pid);
    assert.ok(
      ctx.structuredContent.memories.some((m: { id: string; project: string }) =>
        m.id === inProject.structuredContent.id && m.project === pid
      ),
    );

    const bob = await connectHttp(server.url, tokens.bob);
    try {
      const shared = await call(bob, "memory_search", { query: "Orion gateway Envoy", project: pid });
      assert.ok(
        shared.structuredContent.results.some((r: { id: string }) => r.id === inProject.structuredContent.id),
      );
      assert.equal((await call(bob, "project_delete", { project: pid })).structuredContent.status, 403);
      assert.ok(!(await call(ada, "project_unshare", { project: pid, email: BOB.email })).isError);
      const denied = await call(bob, "project_activate", { project: pid });
      assert.equal(denied.structuredContent.status, 403);
      assert.equal(denied.structuredContent.error, "not a member of this project");
      assert.equal(
        (await call(bob, "project_activate", { project: "no-such-project" })).structuredContent.status,
        404,
      );
    } finally {
      await bob.close();
    }
    assert.deepEqual((await call(ada, "project_deactivate")).structuredContent, { project: null });
    assert.equal((await call(ada, "project_delete", { project: pid })).structuredContent.deleted, true);
  });

  it("works over the legacy SSE transport too", async () => {
    const { client } = await connectSse(server.url, tokens.ada);
    try {
      assert.match(client.getInstructions() ?? "", /memory_context/);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), TOOLS);
      const r = await call(client, "memory_search", { query: "build server" });
      assert.ok(!r.isError);
      assert.ok(r.structuredContent.results.length > 0);
    } finally {
      await client.close();
    }
  });

  it("refuses another user's session: 403 on /mcp and /mcp/messages; unknown sessions are 404", async () => {
    const abort = new AbortController();
    try {
      const sseId = await openRawSse(server.url, tokens.ada, abort.signal);
      const message = { jsonrpc: "2.0", id: 99, method: "tools/list" };
      const asBob = await fetch(`${server.url}/mcp/messages?sessionId=${sseId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.bob}`, "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      assert.equal(asBob.status, 403);
      await asBob.body?.cancel();
      const unknown = await fetch(
        `${server.url}/mcp/messages?sessionId=00000000-0000-0000-0000-000000000000`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${tokens.ada}`, "content-type": "application/json" },
          body: JSON.stringify(message),
        },
      );
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
    } finally {
      abort.abort();
    }
    const httpTransport = (ada as unknown as { transport: { sessionId?: string } }).transport;
    const foreign = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.bob}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": httpTransport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    const noAuth = await fetch(`${server.url}/mcp`, { method: "POST", body: "{}" });
    assert.equal(noAuth.status, 401);
    await noAuth.body?.cancel();
  });

  it("caps concurrent SSE sessions at 10 per user: the 11th gets 429", async () => {
    const open: AbortController[] = [];
    const headers = { authorization: `Bearer ${tokens.bob}`, accept: "text/event-stream" };
    try {
      for (let i = 0; i < 10; i++) {
        const abort = new AbortController();
        const res = await fetch(`${server.url}/mcp/sse`, { headers, signal: abort.signal });
        assert.equal(res.status, 200, `session ${i + 1}`);
        open.push(abort);
      }
      const eleventh = await fetch(`${server.url}/mcp/sse`, { headers });
      assert.equal(eleventh.status, 429);
      await eleventh.body?.cancel();
      // Another user is not affected.
      const abort = new AbortController();
      const other = await fetch(`${server.url}/mcp/sse`, {
        headers: { ...headers, authorization: `Bearer ${tokens.ada}` },
        signal: abort.signal,
      });
      assert.equal(other.status, 200);
      open.push(abort);
    } finally {
      for (const a of open) a.abort();
    }
  });
});

describe("memsvc MCP SSE housekeeping", () => {
  let home: string;
  let server: RunningBinary;
  let token: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-mcp-idle-"));
    server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: serverEnv(home, { MEMSVC_MCP_SSE_IDLE_MS: "1500", MEMSVC_MCP_KEEPALIVE_MS: "200" }),
    });
    token = (await usersWithTokens(server)).ada;
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("sends keep-alive comments on an idle stream and reaps a session with no POST for the idle time", async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/mcp/sse`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    let text = "";
    const deadline = Date.now() + 5_000;
    while (!/: keep-alive/.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const sessionId = /sessionId=([0-9a-f-]+)/.exec(text)?.[1];
    assert.ok(sessionId, text);
    assert.match(text, /: keep-alive/);
    // Idle for longer than MEMSVC_MCP_SSE_IDLE_MS (1.5 s); the reaper runs every second.
    await new Promise((r) => setTimeout(r, 3_200));
    const late = await fetch(`${server.url}/mcp/messages?sessionId=${sessionId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(late.status, 404);
    await late.body?.cancel();
    abort.abort();
    assert.ok(server.records().some((r) => r.msg === "idle MCP sessions reaped"));
  });

  it("dist/memsvc mcp bridges a stdio client to /mcp and survives the server expiring its session", async () => {
    const client = await connectStdioBridge(server.url, token);
    try {
      assert.match(client.getInstructions() ?? "", /memory_context/);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), TOOLS);
      const stored = await call(client, "memory_capture", {
        content: "The bridge test stores this durable fact today.",
      });
      assert.match(stored.structuredContent.id, /^m_/);
      // Idle longer than the session lifetime (1.5 s here): the server reaps the session, the
      // bridge gets 404, initialises a new session and replays the call.
      await new Promise((r) => setTimeout(r, 3_200));
      const found = await call(client, "memory_search", { query: "bridge test durable fact" });
      assert.ok(!found.isError, JSON.stringify(found));
      assert.equal(found.structuredContent.results[0].id, stored.structuredContent.id);
    } finally {
      await client.close();
    }
  });
});
