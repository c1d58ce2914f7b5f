/**
 * The bridge in process, against a real MCP server (the SDK's) on loopback, driven frame by frame
 * through its stdin and read back from its stdout.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { freePort } from "../http/free_port.ts";
import { runStdioBridge } from "./bridge.ts";
import {
  type SeenRequest,
  startTestUpstream,
  type TestUpstream,
  type TestUpstreamOptions,
} from "./testing.ts";

const TOKEN = "nm_bridge-test-token-0123456789";
const PROTOCOL_VERSION = "2025-11-25";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "bridge-test", version: "1.0.0" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

interface Message {
  jsonrpc: "2.0";
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: {
    protocolVersion?: string;
    tools?: { name: string }[];
    content?: { text?: string }[];
  };
  error?: { code: number; message: string };
}

/** The bridge's stdout, parsed; every line must be one JSON-RPC message. */
class Output {
  readonly messages: Message[] = [];
  #waiters: (() => void)[] = [];

  write(chunk: string) {
    assert.ok(chunk.endsWith("\n"), "each write is a whole line");
    for (const line of chunk.split("\n").filter(Boolean)) {
      const message = JSON.parse(line);
      assert.equal(message.jsonrpc, "2.0", `not a JSON-RPC message: ${line}`);
      this.messages.push(message);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async waitFor(predicate: (m: Message) => boolean, what: string, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`);
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  response(id: unknown): Promise<Message> {
    return this.waitFor((m) => m.id === id && !("method" in m), `response to ${id}`);
  }
}

function startBridge(url: string, token = TOKEN) {
  const input = new PassThrough();
  const output = new Output();
  const done = runStdioBridge({ url, token, input, output, retryDelaysMs: [20, 50] });
  let nextId = 1;
  const send = (message: object) => input.write(JSON.stringify(message) + "\n");
  const call = (method: string, params: object = {}) => {
    const id = nextId++;
    send({ jsonrpc: "2.0", id, method, params });
    return output.response(id);
  };
  const initialize = async () => {
    send(INITIALIZE);
    send(INITIALIZED);
    return await output.response(0);
  };
  return { input, output, done, send, call, initialize, end: () => input.writableEnded || input.end() };
}

const posts = (seen: SeenRequest[]) => seen.filter((r) => r.method === "POST");
const bodyMethod = (r: SeenRequest) => (r.body as { method?: string } | undefined)?.method;
const text = (m: Message) => m.result?.content?.[0]?.text;

async function until(condition: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Bridge = ReturnType<typeof startBridge>;

/**
 * Runs `body` against a fresh upstream with a way to start bridges; afterwards (pass or fail) ends
 * their input, gives them a moment to stop, and stops the upstream.
 */
async function withUpstream(
  options: Omit<TestUpstreamOptions, "token">,
  body: (upstream: TestUpstream, open: (url?: string, token?: string) => Bridge) => Promise<void>,
) {
  const upstream = startTestUpstream({ token: TOKEN, ...options });
  const bridges: Bridge[] = [];
  try {
    await body(upstream, (url = upstream.url, token = TOKEN) => {
      const bridge = startBridge(url, token);
      bridges.push(bridge);
      return bridge;
    });
  } finally {
    for (const bridge of bridges) bridge.end();
    await Promise.race([Promise.all(bridges.map((b) => b.done)), new Promise((r) => setTimeout(r, 2_000))]);
    await upstream.close();
  }
}

describe("stdio bridge: forwarding", () => {
  it("queues frames until initialize is answered, then sends the session id and protocol version", async () => {
    await withUpstream({}, async (upstream, open) => {
      const bridge = open();
      // Everything at once, without waiting for the initialize result, as a hasty client would.
      bridge.send(INITIALIZE);
      bridge.send(INITIALIZED);
      bridge.send({ jsonrpc: "2.0", id: "list", method: "tools/list" });
      const init = await bridge.output.response(0);
      assert.equal(init.result?.protocolVersion, PROTOCOL_VERSION);
      const list = await bridge.output.response("list");
      assert.deepEqual(list.result?.tools?.map((t) => t.name).sort(), [
        "echo",
        "interrupted",
        "progress",
        "slow",
      ]);
      bridge.end();
      await bridge.done;

      const [first, ...later] = posts(upstream.seen);
      assert.equal(bodyMethod(first!), "initialize");
      assert.equal(first!.headers.get("mcp-session-id"), null, "initialize carries no session id");
      assert.equal(first!.headers.get("authorization"), `Bearer ${TOKEN}`);
      assert.equal(first!.headers.get("accept"), "application/json, text/event-stream");
      assert.equal(first!.headers.get("content-type"), "application/json");
      const [session] = upstream.deleted;
      assert.ok(session, "the session was ended with DELETE");
      assert.deepEqual(later.map(bodyMethod), ["notifications/initialized", "tools/list"]);
      for (const request of later) {
        assert.equal(request.headers.get("mcp-session-id"), session);
        assert.equal(request.headers.get("mcp-protocol-version"), PROTOCOL_VERSION);
      }
      // Only responses reached the client: the notification's 202 produced nothing.
      assert.deepEqual(bridge.output.messages.map((m) => m.id), [0, "list"]);
    });
  });

  it("writes JSON response bodies as they are", async () => {
    await withUpstream({ jsonResponses: true }, async (_upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      const echo = await bridge.call("tools/call", { name: "echo", arguments: { text: "json" } });
      assert.equal(text(echo), "echo: json");
      bridge.end();
      await bridge.done;
    });
  });

  it("passes server notifications from response streams and from the GET stream, and resumes the latter", async () => {
    await withUpstream({ resumable: true }, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      bridge.send({
        jsonrpc: "2.0",
        id: "p",
        method: "tools/call",
        params: { name: "progress", arguments: { steps: 3 }, _meta: { progressToken: "tok" } },
      });
      assert.equal(text(await bridge.output.response("p")), "did 3 steps");
      const progress = bridge.output.messages.filter((m) => m.method === "notifications/progress");
      assert.deepEqual(
        progress.map((m) => m.params),
        [1, 2, 3].map((progress) => ({
          progressToken: "tok",
          progress,
          total: 3,
        })),
      );
      assert.ok(bridge.output.messages.some((m) => m.method === "notifications/message"));

      // Outside any request: only the GET stream can carry it.
      await until(() => upstream.seen.some((r) => r.method === "GET"), "the GET stream");
      await upstream.broadcast("first broadcast");
      await bridge.output.waitFor((m) => m.params?.data === "first broadcast", "first broadcast");

      // The server drops the stream; the bridge reconnects from the last event id it saw.
      upstream.dropServerStreams();
      await until(
        () => upstream.seen.some((r) => r.method === "GET" && r.headers.get("last-event-id") !== null),
        "a GET with Last-Event-ID",
      );
      await until(() => upstream.seen.filter((r) => r.method === "GET").length >= 2, "the reconnection");
      await new Promise((resolve) => setTimeout(resolve, 100));
      await upstream.broadcast("second broadcast");
      await bridge.output.waitFor((m) => m.params?.data === "second broadcast", "second broadcast");
      bridge.end();
      await bridge.done;
    });
  });

  it("stops asking for the GET stream once the server answers 405", async () => {
    await withUpstream({ noServerStream: true }, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      await new Promise((resolve) => setTimeout(resolve, 300)); // many retry delays of 20-50 ms
      assert.equal(upstream.seen.filter((r) => r.method === "GET").length, 1);
      assert.equal(
        text(await bridge.call("tools/call", { name: "echo", arguments: { text: "x" } })),
        "echo: x",
      );
      bridge.end();
      await bridge.done;
    });
  });

  it("resumes a response stream the server closed before answering, with Last-Event-ID", async () => {
    await withUpstream({ resumable: true }, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      const answer = await bridge.call("tools/call", { name: "interrupted", arguments: {} });
      assert.equal(text(answer), "answered after the stream was dropped");
      assert.ok(upstream.seen.some((r) => r.method === "GET" && r.headers.get("last-event-id") !== null));
      bridge.end();
      await bridge.done;
    });
  });
});

describe("stdio bridge: an expired session", () => {
  it("starts a new session with the client's initialize and replays the request, unseen by the client", async () => {
    await withUpstream({}, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      assert.equal(
        text(await bridge.call("tools/call", { name: "echo", arguments: { text: "a" } })),
        "echo: a",
      );
      const [oldSession] = upstream.sessionIds();
      const before = upstream.seen.length;

      upstream.forgetSessions();
      const answer = await bridge.call("tools/call", { name: "echo", arguments: { text: "b" } });
      assert.equal(text(answer), "echo: b");

      const afterExpiry = upstream.seen.slice(before).filter((r) => r.method === "POST");
      assert.deepEqual(afterExpiry.map(bodyMethod), [
        "tools/call", // 404: the session is gone
        "initialize",
        "notifications/initialized",
        "tools/call", // replayed
      ]);
      const [failed, reinit, , replayed] = afterExpiry;
      assert.equal(failed!.headers.get("mcp-session-id"), oldSession);
      assert.equal(reinit!.headers.get("mcp-session-id"), null);
      assert.deepEqual((reinit!.body as typeof INITIALIZE).params, INITIALIZE.params);
      const [newSession] = upstream.sessionIds();
      assert.notEqual(newSession, oldSession);
      assert.equal(replayed!.headers.get("mcp-session-id"), newSession);
      assert.deepEqual(replayed!.body, failed!.body);
      // The client saw one initialize result and one answer per call, nothing else.
      assert.deepEqual(bridge.output.messages.map((m) => m.id), [0, 1, 2]);
      // The GET stream follows the new session.
      await until(
        () => upstream.seen.some((r) => r.method === "GET" && r.headers.get("mcp-session-id") === newSession),
        "a GET stream for the new session",
      );
      bridge.end();
      await bridge.done;
    });
  });
});

describe("stdio bridge: failures", () => {
  it("answers every request with a JSON-RPC error when the token is refused; notifications get none", async () => {
    await withUpstream({}, async (_upstream, open) => {
      const bridge = open(undefined, "nm_revoked-token-000000000");
      bridge.send(INITIALIZE);
      bridge.send(INITIALIZED);
      bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const init = await bridge.output.response(0);
      assert.equal(init.error?.code, -32000);
      assert.match(init.error?.message ?? "", /HTTP 401/);
      assert.match(init.error?.message ?? "", /revoked or is invalid/);
      const list = await bridge.output.response(1);
      assert.match(list.error?.message ?? "", /HTTP 401/);
      bridge.end();
      await bridge.done;
      assert.deepEqual(bridge.output.messages.map((m) => m.id), [0, 1]);
      assert.ok(!bridge.output.messages.some((m) => JSON.stringify(m).includes("revoked-token")));
    });
  });

  it("answers with a JSON-RPC error when the server cannot be reached", async () => {
    const bridge = startBridge(`http://127.0.0.1:${await freePort()}/mcp`);
    bridge.send(INITIALIZE);
    const init = await bridge.output.response(0);
    assert.equal(init.error?.code, -32000);
    assert.match(init.error?.message ?? "", /cannot reach the MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    bridge.end();
    await bridge.done;
  });

  it("answers with a JSON-RPC error naming the status when the server fails", async () => {
    const failing = (req: Request) =>
      req.headers.has("mcp-session-id") && req.method === "POST"
        ? Response.json({ error: "database unavailable" }, { status: 503 })
        : undefined;
    await withUpstream({ intercept: failing }, async (_upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      const list = await bridge.call("tools/list");
      assert.equal(list.error?.code, -32000);
      assert.match(list.error?.message ?? "", /failed \(HTTP 503\): database unavailable/);
      bridge.end();
      await bridge.done;
    });
  });

  it("sends a refused read once more after a short Retry-After; a write, a long wait or a second refusal is reported", async () => {
    // Refuses every tools/call whose text argument starts with "refuse", once per id ("refuse-always": every time).
    const refusedIds = new Set<unknown>();
    const refuse = (req: Request, body: unknown) => {
      const call = body as {
        id?: unknown;
        method?: string;
        params?: { arguments?: { text?: string; ms?: number } };
      };
      if (req.method !== "POST" || call?.method !== "tools/call") return undefined;
      const args = call.params?.arguments ?? {};
      const always = args.text === "refuse-always";
      const wait = args.text === "refuse-long" ? "30" : "1";
      if (!(args.text?.startsWith("refuse") || args.ms === 1) || (refusedIds.has(call.id) && !always)) {
        return undefined;
      }
      refusedIds.add(call.id);
      return Response.json({
        jsonrpc: "2.0",
        id: call.id,
        error: { code: -32000, message: `Rate limit exceeded for this API key: retry in ${wait} s` },
      }, { status: 429, headers: { "Retry-After": wait } });
    };
    await withUpstream({ intercept: refuse }, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      const callsOf = (id: unknown) =>
        posts(upstream.seen).filter((r) => (r.body as { id?: unknown }).id === id).length;

      // Before tools/list the bridge cannot know echo only reads: not resent.
      const unknown = await bridge.call("tools/call", { name: "echo", arguments: { text: "refuse" } });
      assert.match(
        unknown.error?.message ?? "",
        /HTTP 429\): Rate limit exceeded for this API key: retry in 1 s/,
      );
      assert.equal(callsOf(unknown.id), 1);

      await bridge.call("tools/list");
      const started = Date.now();
      const read = await bridge.call("tools/call", { name: "echo", arguments: { text: "refuse" } });
      assert.equal(text(read), "echo: refuse", JSON.stringify(read));
      assert.ok(Date.now() - started >= 1_000, "waited the Retry-After out");
      assert.equal(callsOf(read.id), 2);

      const write = await bridge.call("tools/call", { name: "slow", arguments: { ms: 1 } });
      assert.match(write.error?.message ?? "", /HTTP 429/, "a tool without readOnlyHint is never resent");
      assert.equal(callsOf(write.id), 1);

      const long = await bridge.call("tools/call", { name: "echo", arguments: { text: "refuse-long" } });
      assert.match(long.error?.message ?? "", /retry in 30 s/, "30 s is not a short wait");
      assert.equal(callsOf(long.id), 1);

      const twice = await bridge.call("tools/call", { name: "echo", arguments: { text: "refuse-always" } });
      assert.match(twice.error?.message ?? "", /HTTP 429/);
      assert.equal(callsOf(twice.id), 2, "resent once, not more");
      bridge.end();
      await bridge.done;
    });
  });

  it("answers a line that is not JSON-RPC with the JSON-RPC error for it and carries on", async () => {
    await withUpstream({}, async (_upstream, open) => {
      const bridge = open();
      bridge.input.write("this is not json\n");
      const parseError = await bridge.output.waitFor((m) => m.error?.code === -32700, "a parse error");
      assert.equal(parseError.id, null);
      bridge.input.write('{"id":1,"method":"ping"}\n');
      await bridge.output.waitFor((m) => m.error?.code === -32600, "an invalid request error");
      await bridge.initialize();
      bridge.end();
      await bridge.done;
    });
  });
});

describe("stdio bridge: end of input", () => {
  it("waits for in-flight requests, writes their answers, then ends the session", async () => {
    await withUpstream({}, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      bridge.send({
        jsonrpc: "2.0",
        id: "slow",
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 300 } },
      });
      bridge.end();
      await bridge.done;
      assert.equal(text(await bridge.output.response("slow")), "slept 300 ms");
      assert.equal(upstream.seen.at(-1)!.method, "DELETE");
      assert.equal(upstream.deleted.length, 1);
    });
  });

  it("does not wait for a request the client cancelled", async () => {
    await withUpstream({}, async (upstream, open) => {
      const bridge = open();
      await bridge.initialize();
      bridge.send({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 60_000 } },
      });
      await until(
        () => upstream.seen.some((r) => (r.body as { id?: number })?.id === 9),
        "the call to arrive",
      );
      bridge.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 9, reason: "user" },
      });
      bridge.end();
      const started = Date.now();
      await bridge.done;
      assert.ok(Date.now() - started < 5_000, "the bridge did not wait for the cancelled call");
      assert.ok(!bridge.output.messages.some((m) => m.id === 9), "a cancelled request gets no response");
    });
  });
});
