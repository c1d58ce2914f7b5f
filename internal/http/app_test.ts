import { test } from "node:test";
import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { createLogger } from "../log/mod.ts";
import { createApp } from "./app.ts";
import { ValidationError } from "./errors.ts";

function setup(
  options: {
    trustedProxies?: string[];
    corsOrigins?: string[];
    bodyLimitBytes?: number;
    largeBodies?: Record<string, number>;
  } = {},
) {
  const lines: string[] = [];
  const log = createLogger({ format: "json", stream: { write: (l: string) => lines.push(l) } });
  const app = createApp({ log, ...options });
  app.get("/ok", (c) => c.json({ ok: true }));
  app.post("/echo", async (c) => c.json(z.object({ name: z.string().min(1) }).parse(await c.req.json())));
  app.post("/upload", async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));
  app.get("/boom", () => {
    throw new Error("db password=hunter2 exploded");
  });
  app.get("/teapot", () => {
    throw new HTTPException(403, { message: "not a member" });
  });
  app.get("/custom", () => {
    throw new ValidationError([{ path: ["depth"], message: "must be 1, 2 or 3", code: "custom" }]);
  });
  const request = (path: string, init?: RequestInit, remoteAddr = "203.0.113.9") =>
    app.request(path, init, { remoteAddr });
  return { request, lines };
}

const SECURITY = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

function assertHardened(res: Response) {
  for (const [k, v] of Object.entries(SECURITY)) assert.equal(res.headers.get(k), v, k);
  assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f]{16}$/);
}

test("every response carries a 16-hex request id and the hardening headers, errors included", async () => {
  const { request } = setup();
  for (const path of ["/ok", "/nope", "/boom", "/teapot"]) assertHardened(await request(path));
  const a = await request("/ok");
  const b = await request("/ok");
  assert.notEqual(a.headers.get("x-request-id"), b.headers.get("x-request-id"));
});

test("an inbound request id is honoured only from a trusted proxy and only when well-formed", async () => {
  const { request } = setup({ trustedProxies: ["10.0.0.0/8"] });
  const spoof = { headers: { "x-request-id": "client-chosen-id" } };
  assert.equal((await request("/ok", spoof, "10.1.2.3")).headers.get("x-request-id"), "client-chosen-id");
  assert.notEqual(
    (await request("/ok", spoof, "203.0.113.9")).headers.get("x-request-id"),
    "client-chosen-id",
  );
  const bad = { headers: { "x-request-id": "has spaces <script>" } };
  assert.match((await request("/ok", bad, "10.1.2.3")).headers.get("x-request-id")!, /^[0-9a-f]{16}$/);
  const long = { headers: { "x-request-id": "a".repeat(129) } };
  assert.match((await request("/ok", long, "10.1.2.3")).headers.get("x-request-id")!, /^[0-9a-f]{16}$/);
});

test("unknown paths get a JSON 404", async () => {
  const res = await setup().request("/missing");
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { error: "not found" });
});

test("schema failures are 400 with structured issues", async () => {
  const { request } = setup();
  const res = await request("/echo", { method: "POST", body: JSON.stringify({ name: "" }) });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.error, "invalid request");
  assert.equal(body.issues[0].path[0], "name");
  assert.equal(typeof body.issues[0].message, "string");
  const custom = await request("/custom");
  assert.equal(custom.status, 400);
  assert.deepEqual((await custom.json()).issues, [{
    path: ["depth"],
    message: "must be 1, 2 or 3",
    code: "custom",
  }]);
});

test("other errors are a bare 500; the detail and request id go only to the log, redacted", async () => {
  const { request, lines } = setup();
  const res = await request("/boom");
  assert.equal(res.status, 500);
  assert.deepEqual(await res.json(), { error: "internal server error" });
  const id = res.headers.get("x-request-id");
  const record = lines.map((l) => JSON.parse(l)).find((r) => r.msg === "unhandled error");
  assert.equal(record.requestId, id);
  assert.match(record.err.message, /exploded/);
  const http = await request("/teapot");
  assert.equal(http.status, 403);
  assert.deepEqual(await http.json(), { error: "not a member" });
});

test("one access log line per request, without the query string", async () => {
  const { request, lines } = setup();
  await request("/ok?token=nm_secretsecret");
  const access = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
  assert.equal(access.length, 1);
  assert.equal(access[0].path, "/ok");
  assert.equal(access[0].status, 200);
  assert.ok(!lines.join("").includes("secretsecret"));
});

test("bodies over the limit are refused with 413 before the handler runs", async () => {
  const { request } = setup({ bodyLimitBytes: 16 });
  const res = await request("/echo", { method: "POST", body: JSON.stringify({ name: "x".repeat(64) }) });
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), { error: "request body too large", limitBytes: 16 });
  assertHardened(res);
});

test("a route named in largeBodies takes bodies up to its own limit, the others keep theirs", async () => {
  const { request } = setup({ bodyLimitBytes: 16, largeBodies: { "/upload": 64 } });
  const ok = await request("/upload", { method: "POST", body: "x".repeat(60) });
  assert.deepEqual(await ok.json(), { bytes: 60 });
  const big = await request("/upload", { method: "POST", body: "x".repeat(65) });
  assert.equal(big.status, 413);
  assert.deepEqual(await big.json(), { error: "request body too large", limitBytes: 64 });
  assert.equal((await request("/echo", { method: "POST", body: "x".repeat(60) })).status, 413);
});

test("CORS answers only allowlisted origins; the default is same-origin only", async () => {
  const open = setup({ corsOrigins: ["https://app.example"] });
  const ok = await open.request("/ok", { headers: { origin: "https://app.example" } });
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://app.example");
  const foreign = await open.request("/ok", { headers: { origin: "https://evil.example" } });
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  const closed = await setup().request("/ok", { headers: { origin: "https://app.example" } });
  assert.equal(closed.headers.get("access-control-allow-origin"), null);
});
