/**
 * Black-box: /openapi.json and /api-docs of dist/memsvc (issue 8). The document validates as
 * OpenAPI 3.1; real answers of the running server match the response schemas it describes; the docs
 * page and every file it references come from the binary, under a strict Content-Security-Policy.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { z } from "zod";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };

// deno-lint-ignore no-explicit-any
type Doc = any;

/** The described response schema of an operation, as a zod schema (components inlined via $defs). */
function responseSchema(document: Doc, method: string, path: string, status: number): z.ZodType {
  const operation = document.paths[path]?.[method];
  assert.ok(operation, `${method.toUpperCase()} ${path} is described`);
  let response = operation.responses[String(status)];
  if (response?.$ref) response = document.components.responses[response.$ref.split("/").pop()];
  const schema = response?.content?.["application/json"]?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} describes a JSON ${status}`);
  const json = JSON.parse(
    JSON.stringify({ ...schema, $defs: document.components.schemas }).replaceAll(
      "#/components/schemas/",
      "#/$defs/",
    ),
  );
  return z.fromJSONSchema(json);
}

describe("memsvc /openapi.json and /api-docs", () => {
  let home: string;
  let server: RunningBinary;
  let document: Doc;
  let admin: Client;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-openapi-"));
    server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: memsvcEnv(home, { admin: ADMIN }),
    });
    admin = new Client(server.url, { origin: server.url });
    const signIn = await admin.post("/api/auth/sign-in/email", ADMIN);
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
  });

  after(async () => {
    await server?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("serves an OpenAPI 3.1 document that validates", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f]{16}$/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    document = await res.json();
    assert.match(document.openapi, /^3\.1\.\d+$/);
    assert.equal(document.servers[0].url, server.url);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, "3.1");
    for (const path of ["/health", "/v1/search", "/v1/me/tokens", "/api/auth/sign-in/email", "/mcp"]) {
      assert.ok(document.paths[path], `${path} is described`);
    }
  });

  it("describes what the server really answers", async () => {
    const check = (method: string, path: string, reply: { status: number; body: unknown }) => {
      const described = path.replace(/\/m_[0-9a-f]+/, "/{id}").replace(/\/p_[A-Za-z0-9]+/, "/{ref}")
        .replace(/\/[0-9a-f]{64}$/, "/{tokenHash}");
      const result = responseSchema(document, method, described, reply.status).safeParse(reply.body);
      assert.ok(
        result.success,
        `${method.toUpperCase()} ${path} ${reply.status} does not match its description: ` +
          `${JSON.stringify(reply.body)}\n${result.error}`,
      );
    };
    check("get", "/health", await admin.get("/health"));

    const minted = await admin.post("/v1/me/tokens", { label: "openapi test" });
    check("post", "/v1/me/tokens", minted);
    check("get", "/v1/me/tokens", await admin.get("/v1/me/tokens"));
    const agent = new Client(server.url, { bearer: minted.body.token });

    const remembered = await agent.post("/v1/remember", {
      content: "The staging database runs PostgreSQL 15 on port 5433",
      metadata: { host: "db-staging", tags: ["infra", 1, null] },
      source_type: "doc",
    });
    assert.equal(remembered.status, 201);
    check("post", "/v1/remember", remembered);
    check("post", "/v1/remember", await agent.post("/v1/remember", { content: "ok thanks" }));
    const id = remembered.body.id;
    check("post", "/v1/search", await agent.post("/v1/search", { query: "staging database port" }));
    check("get", "/v1/recent", await agent.get("/v1/recent?limit=5"));
    check("get", `/v1/memories/${id}`, await agent.get(`/v1/memories/${id}`));
    check(
      "put",
      `/v1/memories/${id}`,
      await agent.call("PUT", `/v1/memories/${id}`, { confidence: 0.9 }),
    );
    check(
      "get",
      `/v1/memories/${id}/neighbors`,
      await agent.get(`/v1/memories/${id}/neighbors?depth=2`),
    );

    const project = await agent.post("/v1/projects", { name: "openapi-docs" });
    check("post", "/v1/projects", project);
    check("get", "/v1/projects", await agent.get("/v1/projects"));
    check(
      "get",
      `/v1/projects/${project.body.id}/members`,
      await agent.get(`/v1/projects/${project.body.id}/members`),
    );
    check(
      "put",
      "/v1/me/active-project",
      await agent.call("PUT", "/v1/me/active-project", { project: "openapi-docs" }),
    );
    check("get", "/v1/me/active-project", await agent.get("/v1/me/active-project"));
    check("delete", "/v1/me/active-project", await agent.delete("/v1/me/active-project"));
    check("get", "/v1/me/today", await agent.get("/v1/me/today"));
    check("get", "/v1/me/metrics/history", await agent.get("/v1/me/metrics/history?hours=1"));
    check("delete", `/v1/memories/${id}`, await agent.delete(`/v1/memories/${id}`));

    check("get", "/v1/admin/audit-log", await admin.get("/v1/admin/audit-log?limit=20"));
    check("get", "/v1/admin/metrics", await admin.get("/v1/admin/metrics"));
    check("get", "/v1/admin/health/deep", await admin.get("/v1/admin/health/deep"));
    check("post", "/v1/dream-cycle", await admin.post("/v1/dream-cycle"));
    check("post", "/v1/reap-orphans", await admin.post("/v1/reap-orphans"));
    check("post", "/v1/decay", await admin.post("/v1/decay", { effectiveDays: 30 }));

    // The identity library behind the allowlist, and the last-admin guard in front of it.
    const again = await new Client(server.url, { origin: server.url }).post("/api/auth/sign-in/email", ADMIN);
    check("post", "/api/auth/sign-in/email", again);
    check("get", "/api/auth/admin/list-users", await admin.get("/api/auth/admin/list-users"));
    const demote = await admin.post("/api/auth/admin/set-role", { userId: again.body.user.id, role: "user" });
    assert.equal(demote.body.code, "LAST_ADMIN_PROTECTED");
    check("post", "/api/auth/admin/set-role", demote);
    check(
      "post",
      "/api/auth/sign-in/email",
      await new Client(server.url).post("/api/auth/sign-in/email", {}),
    );

    // Error bodies of the contract.
    check("post", "/v1/remember", await agent.post("/v1/remember", { content: 42 }));
    check("post", "/v1/remember", await new Client(server.url).post("/v1/remember", { content: "x" }));
    check("get", "/v1/admin/metrics", await agent.get("/v1/admin/metrics"));
    check("post", "/v1/search", await agent.post("/v1/search", { query: "x", project: "nope" }));
    check(
      "delete",
      `/v1/me/tokens/${minted.body.tokenHash}`,
      await admin.delete(`/v1/me/tokens/${minted.body.tokenHash}`),
    );
  });

  it("serves /api-docs and every file it references from the binary, under a strict CSP", async () => {
    const page = await fetch(`${server.url}/api-docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const csp = page.headers.get("content-security-policy") ?? "";
    const scriptSrc = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src"));
    assert.equal(scriptSrc, "script-src 'self'", "scripts only from this origin: no inline, no eval");
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, "nothing from another origin");

    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((r) =>
      !r.startsWith("data:")
    );
    assert.equal(refs.length, 3, `the stylesheet, the bundle and the start-up script: ${refs}`);
    const types: Record<string, RegExp> = { ".js": /^text\/javascript/, ".css": /^text\/css/ };
    for (const ref of refs) {
      const url = new URL(ref, `${server.url}/api-docs`);
      const res = await fetch(url);
      assert.equal(res.status, 200, String(url));
      const ext = url.pathname.slice(url.pathname.lastIndexOf("."));
      assert.match(res.headers.get("content-type") ?? "", types[ext]!, String(url));
      assert.equal(res.headers.get("content-security-policy"), csp);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable", String(url));
      const body = await res.text();
      if (url.pathname.endsWith("swagger-ui-bundle.js")) assert.match(body, /SwaggerUIBundle/);
      if (url.pathname.endsWith("init.js")) assert.match(body, /url: "openapi.json"/);

      const etag = res.headers.get("etag")!;
      const again = await fetch(url, { headers: { "if-none-match": etag } });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    }
    const unknown = await fetch(`${server.url}/api-docs/nope.js`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });
});
