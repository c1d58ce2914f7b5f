/**
 * Black-box: conversations in dist/memsvc. `session_id` on POST /v1/remember, PUT /v1/memories/{id},
 * the MCP capture tool and `memsvc import`; search's `context: n` (HTTP and memory_search) (the turns around each hit, same
 * user and session, capture order); the keyword tier finding a turn through its neighbours; and the
 * index rebuilt from the database after the process is killed.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { connectHttp } from "../harness/mcp_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

const TOKEN = "search-sessions-test-token-0123456789abcdef";

describe("memsvc conversations: session_id and search context", () => {
  let home: string;
  let server: RunningBinary;
  let api: Client;
  const env = () => memsvcEnv(home, { extra: { MEMSVC_AUTH_MODE: "bearer", MEMSVC_AUTH_TOKEN: TOKEN } });
  const start = async () => {
    server = await startBinary("memsvc", ["serve"], { cwd: home, env: env() });
    api = new Client(server.url, { bearer: TOKEN });
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-sessions-"));
    await start();
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  const remember = async (content: string, session_id?: string) => {
    const r = await api.post("/v1/remember", { content, force: true, ...(session_id ? { session_id } : {}) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as string;
  };

  it("returns the turns around each hit with `context`, and finds an answer through its neighbours", async () => {
    const t = [
      await remember("We talked about the weekend plans first.", "chat-1"),
      await remember("I finally settled on a name for the sailboat.", "chat-1"),
      await remember("Exciting! What did you go with?", "chat-1"),
      await remember("Wandering Heron, after my grandmother's fishing village.", "chat-1"),
      await remember("Then we moved on to dinner ideas.", "chat-1"),
    ];
    const other = await remember("A sailboat regatta is on in June.", "chat-2");
    const alone = await remember("Sailboat insurance renews in March.");

    const r = await api.post("/v1/search", { query: "what name did I give the sailboat", context: 1 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const byId = new Map(r.body.results.map((x: { id: string }) => [x.id, x]));
    // The answer holds none of the query's words: its neighbour lends it a score.
    assert.ok(byId.has(t[3]), JSON.stringify(r.body.results.map((x: { content: string }) => x.content)));
    const hit = byId.get(t[1]) as { session_id: string; context: unknown };
    assert.equal(hit.session_id, "chat-1");
    assert.deepEqual(hit.context, [
      { id: t[0], content: "We talked about the weekend plans first.", offset: -1 },
      { id: t[2], content: "Exciting! What did you go with?", offset: 1 },
    ]);
    // Other sessions and entries without one carry no turns from chat-1: an empty list.
    assert.deepEqual((byId.get(other) as { context: unknown }).context, []);
    assert.deepEqual((byId.get(alone) as { context?: unknown }).context, []);

    const wide = await api.post("/v1/search", { query: "Wandering Heron", context: 2, mode: "keyword" });
    assert.deepEqual(
      wide.body.results[0].context.map((c: { id: string; offset: number }) => [c.id, c.offset]),
      [[t[1], -2], [t[2], -1], [t[4], 1]],
    );
    const none = await api.post("/v1/search", { query: "Wandering Heron" });
    assert.equal(none.body.results[0].context, undefined);
  });

  it("validates session_id and `context`, and PUT moves an entry into or out of a session", async () => {
    const long = await api.post("/v1/remember", {
      content: "a valid durable fact here",
      session_id: "s".repeat(201),
    });
    assert.equal(long.status, 400);
    assert.match(JSON.stringify(long.body.issues), /session_id must be at most 200 characters/);
    const ctx = await api.post("/v1/search", { query: "fact", context: 11 });
    assert.equal(ctx.status, 400);

    const a = await remember("Kestrel Labs uses Grafana for dashboards.", "ops");
    const b = await remember("The on-call rotation changes every Monday.");
    const put = await api.call("PUT", `/v1/memories/${b}`, { session_id: "ops" });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.session_id, "ops");
    const r = await api.post("/v1/search", { query: "Grafana dashboards", context: 1, mode: "keyword" });
    assert.deepEqual(r.body.results[0].context.map((c: { id: string }) => c.id), [b]);
    assert.equal((await api.call("PUT", `/v1/memories/${b}`, { session_id: null })).body.session_id, null);
    const after = await api.post("/v1/search", { query: "Grafana dashboards", context: 1, mode: "keyword" });
    assert.equal(after.body.results[0].id, a);
    assert.deepEqual(after.body.results[0].context, []);
  });

  it("takes session_id in memory_capture and context in memory_search", async () => {
    const mcp = await connectHttp(server.url, TOKEN);
    try {
      const r = await mcp.callTool({
        name: "memory_capture",
        arguments: { content: "The staging cluster runs Kubernetes 1.31.", session_id: "mcp-1" },
      }) as { content: { text: string }[]; isError?: boolean };
      assert.ok(!r.isError, JSON.stringify(r.content));
      const { id } = JSON.parse(r.content[0]!.text);
      assert.equal((await api.get(`/v1/memories/${id}`)).body.session_id, "mcp-1");
      await mcp.callTool({
        name: "memory_capture",
        arguments: { content: "Its ingress controller is Traefik 3.", session_id: "mcp-1" },
      });
      const found = await mcp.callTool({
        name: "memory_search",
        arguments: { query: "staging cluster Kubernetes", context: 1, limit: 1 },
      }) as { content: { text: string }[] };
      const [top] = JSON.parse(found.content[0]!.text).results;
      assert.equal(top.id, id);
      assert.deepEqual(top.context.map((c: { content: string }) => c.content), [
        "Its ingress controller is Traefik 3.",
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("rebuilds the keyword index from the database after a kill; import brings session_id along", async () => {
    const id = await remember("The boat trailer's licence plate is KX-4411.", "chat-9");
    await server.stop("SIGKILL");
    // Import while stopped (it takes the data directory): an export line with a session.
    const file = join(home, "import.jsonl");
    const now = new Date().toISOString();
    const entry = (content: string, n: number) =>
      JSON.stringify({
        type: "entry",
        id: `m_import${n}`,
        user: "local",
        project: null,
        namespace: "default",
        content,
        content_hash: createHash("sha256").update(content).digest("hex"),
        metadata: {},
        source_type: null,
        captured_from: null,
        confidence: 1,
        session_id: "imported",
        hit_count: 0,
        cold: false,
        created_at: now,
        updated_at: now,
        last_accessed_at: null,
      });
    const users = JSON.parse(
      execFileSync(binaryPath("memsvc"), ["export"], { env: env(), encoding: "utf8" })
        .split("\n").find((l) => l.includes('"type":"user"'))!,
    );
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "memsvc-export", version: 1, exportedAt: now }),
        JSON.stringify(users),
        entry("Imported turn one about the lighthouse keeper.", 1).replace(
          '"local"',
          JSON.stringify(users.email),
        ),
        entry("Imported turn two: his name was Arvid.", 2).replace('"local"', JSON.stringify(users.email)),
      ].join("\n") + "\n",
    );
    execFileSync(binaryPath("memsvc"), ["import", file], { env: env() });
    await start();
    const r = await api.post("/v1/search", { query: "boat trailer licence plate", mode: "keyword" });
    assert.equal(r.body.results[0].id, id);
    const imported = await api.post("/v1/search", {
      query: "lighthouse keeper",
      context: 1,
      mode: "keyword",
    });
    const top = imported.body.results[0];
    assert.equal(top.session_id, "imported");
    assert.deepEqual(top.context.map((c: { content: string; offset: number }) => [c.content, c.offset]), [
      ["Imported turn two: his name was Arvid.", 1],
    ]);
  });
});
