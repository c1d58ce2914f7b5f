import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { type Logger, silentLogger } from "../../../internal/log/mod.ts";
import { EmbedderError } from "./embedder.ts";
import { OpenAIEmbedder, retryDelayMs } from "./openai.ts";

const KEY = "sk-test-9f8e7d6c5b4a39281706";

interface Request {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; input: string[]; encoding_format: string; dimensions?: number };
}
type Handler = (req: Request, res: ServerResponse, n: number) => void;

/** A local server speaking the /v1/embeddings protocol; `handler` decides each answer. */
async function startServer(handler: Handler = answer()) {
  const requests: Request[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const request = { path: req.url ?? "", headers: req.headers, body: JSON.parse(raw || "{}") };
      requests.push(request);
      handler(request, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers like OpenAI, in reverse order so the client must sort by index. Input "n" (a number)
 * gets [n + 1, 1, 1, ...], so the caller can recover which input a vector belongs to.
 */
function answer(dimensions = 4): Handler {
  return (req, res) => {
    const dims = req.body.dimensions ?? dimensions;
    const data = req.body.input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: Array.from({ length: dims }, (_, j) => (j === 0 ? Number(text) + 1 : 1)),
    })).reverse();
    json(res, 200, {
      object: "list",
      data,
      model: req.body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** Which input a vector from answer() was made for. */
const inputOf = (v: Float32Array) => Math.round(v[0]! / v[1]!) - 1;
const numbers = (n: number) => Array.from({ length: n }, (_, i) => String(i));

async function rejection(promise: Promise<unknown>): Promise<EmbedderError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof EmbedderError, `expected EmbedderError, got ${err}`);
    return err;
  }
  assert.fail("expected the promise to reject");
}

test("embeds through POST <base>/embeddings, ordered by index and L2-normalised", async () => {
  const server = await startServer();
  try {
    const embedder = new OpenAIEmbedder({ url: `${server.url}/`, model: "text-embedding-3-small" });
    assert.equal(embedder.dimensions, 0, "unknown until the first response");
    const vectors = await embedder.embed(["3", "0", "7"]);
    assert.deepEqual(vectors.map(inputOf), [3, 0, 7]);
    for (const v of vectors) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-6);
    assert.equal(embedder.dimensions, 4);
    assert.equal(embedder.id, "openai:text-embedding-3-small:4");

    assert.equal(server.requests.length, 1);
    const [req] = server.requests;
    assert.equal(req!.path, "/v1/embeddings");
    assert.equal(req!.headers["content-type"], "application/json");
    assert.deepEqual(req!.body, {
      model: "text-embedding-3-small",
      input: ["3", "0", "7"],
      encoding_format: "float",
    });
    assert.equal(req!.headers.authorization, undefined, "no key, no Authorization header");
  } finally {
    await server.close();
  }
});

test("a URL that already names /embeddings is used as is", async () => {
  const server = await startServer();
  try {
    await new OpenAIEmbedder({ url: `${server.url}/embeddings`, model: "m" }).embed(["1"]);
    assert.equal(server.requests[0]!.path, "/v1/embeddings");
  } finally {
    await server.close();
  }
});

test("no texts, no request", async () => {
  const server = await startServer();
  try {
    assert.deepEqual(await new OpenAIEmbedder({ url: server.url, model: "m" }).embed([]), []);
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

test("batches: 200 inputs with batchSize 96 make 3 requests and keep the order", async () => {
  const server = await startServer();
  try {
    const embedder = new OpenAIEmbedder({ url: server.url, model: "m", batchSize: 96 });
    const vectors = await embedder.embed(numbers(200));
    assert.deepEqual(server.requests.map((r) => r.body.input.length), [96, 96, 8]);
    assert.deepEqual(vectors.map(inputOf), numbers(200).map(Number));
  } finally {
    await server.close();
  }
});

test("sends the API key as a bearer token", async () => {
  const server = await startServer();
  try {
    await new OpenAIEmbedder({ url: server.url, model: "m", apiKey: KEY }).embed(["1"]);
    assert.equal(server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
  } finally {
    await server.close();
  }
});

test("configured dimensions are requested and name the vector space", async () => {
  const server = await startServer();
  try {
    const embedder = new OpenAIEmbedder({ url: server.url, model: "text-embedding-3-large", dimensions: 8 });
    assert.equal(embedder.id, "openai:text-embedding-3-large:8");
    const [v] = await embedder.embed(["1"]);
    assert.equal(server.requests[0]!.body.dimensions, 8);
    assert.equal(v!.length, 8);
  } finally {
    await server.close();
  }
});

test("a vector of the wrong length is refused", async () => {
  // The server ignores the requested dimensions, as some compatible servers do.
  const server = await startServer((req, res, n) =>
    answer(4)({ ...req, body: { ...req.body, dimensions: undefined } }, res, n)
  );
  try {
    const configured = new OpenAIEmbedder({ url: server.url, model: "m", dimensions: 8 });
    const err = await rejection(configured.embed(["1"]));
    assert.match(err.message, /4 dimensions, expected 8/);
  } finally {
    await server.close();
  }
  // Without configured dimensions, the first response fixes them for every later one.
  let dims = 4;
  const changing = await startServer((req, res, n) => answer(dims)(req, res, n));
  try {
    const embedder = new OpenAIEmbedder({ url: changing.url, model: "m" });
    await embedder.embed(["1"]);
    dims = 6;
    const err = await rejection(embedder.embed(["1"]));
    assert.match(err.message, /6 dimensions, expected 4/);
    assert.equal(embedder.id, "openai:m:4");
  } finally {
    await changing.close();
  }
});

test("an error status becomes an EmbedderError with the server's message but never the key", async () => {
  const server = await startServer((_req, res) =>
    json(res, 401, {
      error: {
        message: `Incorrect API key provided: ${KEY}. You can find your API key at ...`,
        type: "invalid_request_error",
      },
    })
  );
  try {
    const embedder = new OpenAIEmbedder({ url: server.url, model: "m", apiKey: KEY });
    const err = await rejection(embedder.embed(["1"]));
    assert.match(err.message, /HTTP 401/);
    assert.match(err.message, /Incorrect API key provided/);
    assert.ok(!err.message.includes(KEY), err.message);
    assert.ok(!err.message.includes("9f8e7d6c"), err.message);
    assert.ok(!String(err.stack).includes(KEY));
    assert.equal(server.requests.length, 1, "4xx other than 429 is not retried");
  } finally {
    await server.close();
  }
});

test("a key-shaped string of another provider in an error body is scrubbed too", async () => {
  const server = await startServer((_req, res) => json(res, 400, "bad key sk-proj-abcdefghijklmnop"));
  try {
    const err = await rejection(new OpenAIEmbedder({ url: server.url, model: "m" }).embed(["1"]));
    assert.match(err.message, /HTTP 400/);
    assert.ok(!err.message.includes("abcdefghijklmnop"), err.message);
  } finally {
    await server.close();
  }
});

test("429 is retried after Retry-After, then succeeds; retries are logged without the key", async () => {
  const server = await startServer((req, res, n) =>
    n === 1
      ? json(res, 429, { error: { message: "Rate limit reached" } }, { "retry-after": "0" })
      : answer()(req, res, n)
  );
  const warnings: Record<string, unknown>[] = [];
  const log: Logger = { ...silentLogger, warn: (_msg, fields) => void warnings.push(fields ?? {}) };
  try {
    const embedder = new OpenAIEmbedder({ url: server.url, model: "m", apiKey: KEY, log });
    const vectors = await embedder.embed(["5", "6"]);
    assert.deepEqual(vectors.map(inputOf), [5, 6]);
    assert.equal(server.requests.length, 2);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.retryInMs, 0);
    assert.match(String(warnings[0]!.reason), /HTTP 429/);
    assert.ok(!JSON.stringify(warnings).includes(KEY));
  } finally {
    await server.close();
  }
});

test("5xx is retried twice, then reported", async () => {
  const server = await startServer((_req, res) =>
    json(res, 503, "upstream unavailable", { "retry-after": "0" })
  );
  try {
    const err = await rejection(new OpenAIEmbedder({ url: server.url, model: "m" }).embed(["1"]));
    assert.equal(server.requests.length, 3);
    assert.match(err.message, /HTTP 503.*upstream unavailable.*after 3 attempts/);
  } finally {
    await server.close();
  }
});

test("malformed bodies become EmbedderErrors", async () => {
  const bodies: [unknown, RegExp][] = [
    ["<html>gateway</html>", /not JSON/],
    [{ object: "list" }, /no `data` array/],
    [{ data: [] }, /0 embeddings for 1 inputs/],
    [{ data: [{ index: 0, embedding: "AAAA" }] }, /not an array of numbers/],
    [{ data: [{ index: 0, embedding: [1, null] }] }, /not an array of numbers/],
    [{ data: [{ index: 3, embedding: [1, 2] }] }, /bad or repeated index 3/],
    [{ data: [{ index: 0, embedding: [0, 0] }] }, /all zeros/],
  ];
  let current: unknown;
  const server = await startServer((_req, res) => json(res, 200, current));
  try {
    for (const [body, pattern] of bodies) {
      current = body;
      const err = await rejection(new OpenAIEmbedder({ url: server.url, model: "m" }).embed(["1"]));
      assert.match(err.message, pattern);
    }
    current = { data: [{ index: 0, embedding: [1, 0] }, { index: 0, embedding: [0, 1] }] };
    const err = await rejection(new OpenAIEmbedder({ url: server.url, model: "m" }).embed(["1", "2"]));
    assert.match(err.message, /repeated index 0/);
  } finally {
    await server.close();
  }
});

test("a missing index means input order, as some compatible servers answer", async () => {
  const server = await startServer((req, res) =>
    json(res, 200, { data: req.body.input.map((t) => ({ embedding: [Number(t) + 1, 1] })) })
  );
  try {
    const vectors = await new OpenAIEmbedder({ url: server.url, model: "m" }).embed(["2", "9"]);
    assert.deepEqual(vectors.map(inputOf), [2, 9]);
  } finally {
    await server.close();
  }
});

test("a server that does not answer in time gives a timeout EmbedderError, without retrying", async () => {
  const server = await startServer(() => {/* never answers */});
  try {
    const started = performance.now();
    const err = await rejection(
      new OpenAIEmbedder({ url: server.url, model: "m", timeoutMs: 200 }).embed(["1"]),
    );
    assert.match(err.message, /timed out after 200 ms/);
    assert.ok(performance.now() - started < 2_000);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test("a server that is not there gives an EmbedderError after the retries", async () => {
  const server = await startServer();
  const url = server.url;
  await server.close();
  const err = await rejection(new OpenAIEmbedder({ url, model: "m", apiKey: KEY }).embed(["1"]));
  assert.match(err.message, /after 3 attempts/);
  assert.ok(err.message.includes(url), err.message);
  assert.ok(!err.message.includes(KEY));
});

test("credentials in the URL are kept out of messages", async () => {
  const server = await startServer((_req, res) => json(res, 404, "not found"));
  try {
    const url = server.url.replace("http://", "http://user:hunter2@");
    const err = await rejection(new OpenAIEmbedder({ url, model: "m" }).embed(["1"]));
    assert.match(err.message, /HTTP 404/);
    assert.ok(!err.message.includes("hunter2"), err.message);
  } finally {
    await server.close();
  }
});

test("retryDelayMs honours Retry-After in seconds or as a date, up to 5 s; else 250 ms doubling", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryDelayMs(0, null, now), 250);
  assert.equal(retryDelayMs(1, null, now), 500);
  assert.equal(retryDelayMs(0, "2", now), 2_000);
  assert.equal(retryDelayMs(0, "0.5", now), 500);
  assert.equal(retryDelayMs(0, "3600", now), 5_000);
  assert.equal(retryDelayMs(0, "Thu, 01 Jan 2026 00:00:03 GMT", now), 3_000);
  assert.equal(retryDelayMs(0, "Wed, 31 Dec 2025 23:00:00 GMT", now), 0);
  assert.equal(retryDelayMs(1, "soon", now), 500);
});

test("the constructor refuses bad options", () => {
  assert.throws(() => new OpenAIEmbedder({ url: "not a url", model: "m" }), /not a valid URL/);
  assert.throws(
    () => new OpenAIEmbedder({ url: "ftp://example.com/v1", model: "m" }),
    /http:\/\/ or https:\/\//,
  );
  assert.throws(() => new OpenAIEmbedder({ url: "https://example.com/v1", model: "" }), /model is required/);
  assert.throws(
    () => new OpenAIEmbedder({ url: "https://example.com/v1", model: "m", batchSize: 0 }),
    /batchSize/,
  );
  assert.throws(
    () => new OpenAIEmbedder({ url: "https://example.com/v1", model: "m", dimensions: 1.5 }),
    /dimensions/,
  );
});
