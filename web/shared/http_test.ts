import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "./api_error.ts";
import { createClient, withQuery } from "./http.ts";

/** A server that answers what each path asks for: the client meets real HTTP. */
function answer(path: string): { status: number; body?: string; headers?: Record<string, string> } {
  if (path.startsWith("/echo")) return { status: 200, body: "" };
  switch (path) {
    case "/null":
      return { status: 200, body: "null" };
    case "/empty":
      return { status: 204 };
    case "/refused":
      return {
        status: 400,
        body: JSON.stringify({
          error: "invalid request",
          code: "BAD",
          issues: [{ path: ["name"], message: "too long" }],
        }),
        headers: { "x-request-id": "r-1" },
      };
    case "/gone":
      return { status: 401, body: JSON.stringify({ error: "not signed in", signIn: "token" }) };
    case "/partial":
      return { status: 422, body: JSON.stringify({ results: [{ ok: false }] }) };
    case "/html":
      return { status: 502, body: "<html>bad gateway</html>" };
    default:
      return { status: 404, body: JSON.stringify({ message: "no such thing" }) };
  }
}

describe("createClient", () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/echo") {
        let body = "";
        req.on("data", (d) => (body += d));
        req.on("end", () => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ method: req.method, query: url.search, headers: req.headers, body }));
        });
        return;
      }
      const a = answer(url.pathname);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it("sends JSON with the client's headers and a query without empty values", async () => {
    const request = createClient({ headers: () => ({ "x-vault-client-id": "tab-1" }) });
    const echo = await request<
      { method: string; query: string; headers: Record<string, string>; body: string }
    >(
      `${base}/echo`,
      { method: "POST", body: { a: 1 }, query: { q: "x y", empty: "", none: undefined, n: 2 } },
    );
    assert.equal(echo.method, "POST");
    assert.equal(echo.query, "?q=x+y&n=2");
    assert.equal(echo.headers["content-type"], "application/json");
    assert.equal(echo.headers["x-vault-client-id"], "tab-1");
    assert.equal(echo.headers.accept, "application/json");
    assert.deepEqual(JSON.parse(echo.body), { a: 1 });
  });

  it("keeps JSON null and answers {} for an empty body", async () => {
    const request = createClient();
    assert.equal(await request(`${base}/null`), null);
    assert.deepEqual(await request(`${base}/empty`), {});
  });

  it("throws an ApiError with the status, code, issues, request id and body; onError sees it first", async () => {
    const seen: string[] = [];
    const request = createClient({ onError: (err, path) => seen.push(`${err.status} ${path}`) });
    const err = await request(`${base}/refused`).catch((e) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.message, "invalid request");
    assert.equal(err.code, "BAD");
    assert.deepEqual(err.issues, [{ path: ["name"], message: "too long" }]);
    assert.equal(err.requestId, "r-1");
    const gone = await request(`${base}/gone`).catch((e: ApiError) => e) as ApiError;
    assert.equal(gone.body.signIn, "token");
    assert.equal((await request(`${base}/nothing`).catch((e: Error) => e) as Error).message, "no such thing");
    assert.match((await request(`${base}/html`).catch((e: Error) => e) as Error).message, /^HTTP 502/);
    assert.deepEqual(seen, [
      `400 ${base}/refused`,
      `401 ${base}/gone`,
      `404 ${base}/nothing`,
      `502 ${base}/html`,
    ]);
    // A quiet request is not reported (a sign-in's own 401 does not end a session).
    await request(`${base}/gone`, { quiet: true }).catch(() => {});
    assert.equal(seen.length, 4);
  });

  it("a non-2xx answer the client accepts is data", async () => {
    const request = createClient({
      answers: (status, body) => status === 422 && Array.isArray(body.results),
    });
    assert.deepEqual(await request(`${base}/partial`), { results: [{ ok: false }] });
  });

  it("no answer at all is an ApiError with status 0 (offline)", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await createClient()(`http://127.0.0.1:${port}/`).catch((e) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 0);
    assert.equal(err.offline, true);
  });

  it("withQuery appends to a path that has a query already", () => {
    assert.equal(withQuery("/a?x=1", { y: "2" }), "/a?x=1&y=2");
    assert.equal(withQuery("/a", {}), "/a");
  });
});
