/**
 * Route coverage of the vault: every route the app registers is described in /api/docs.json (but
 * the document and the docs page themselves, and the web app's pages and files), every description is served, and the document is
 * valid OpenAPI 3.1. Routes are read from Hono's own table, so a route added without a spec fails.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { inspectRoutes } from "hono/dev";
import { TokenBuckets } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { openApiPath } from "../../../internal/openapi/mod.ts";
import { createVaultApp } from "../app.ts";
import { loadVaultConfig } from "../config.ts";
import { createVaultAuth } from "../identity/vault_auth.ts";
import { WEB_APP_PAGES } from "../routes/web_app.ts";

const unused = {} as never;
const config = loadVaultConfig({
  BETTER_AUTH_SECRET: "coverage-test-secret-0123456789abcdef",
  DATABASE_URL: "/tmp/unused",
  VAULT_BASE_URL: "http://127.0.0.1:7779",
});
const limiter = () => TokenBuckets.perPeriod(10, 60_000);
const app = createVaultApp({
  config,
  log: silentLogger,
  store: { database: { db: unused, backend: "pglite" } } as never,
  auth: createVaultAuth({
    db: { withPlugin: () => unused } as never,
    secret: config.BETTER_AUTH_SECRET,
    baseURL: config.VAULT_BASE_URL!,
    trustedOrigins: [],
    log: silentLogger,
  }),
  keys: unused,
  limiters: { signIn: limiter(), password: limiter(), signUp: limiter(), apiKeys: limiter() },
  notes: { store: unused, sync: unused },
  mcp: { registry: unused },
  live: unused,
  access: unused,
  collab: unused,
  plugins: unused,
});

// deno-lint-ignore no-explicit-any
async function documentOf(): Promise<any> {
  return await (await app.request("/api/docs.json")).json();
}

const UNDESCRIBED = [
  /^\/api\/docs(\.json)?$/,
  /^\/api\/docs\/\{file\}$/,
  // The web app: HTML pages and its bundle, not API operations.
  /^\/assets\/(\*|\{file\})$/,
  ...WEB_APP_PAGES.map((page) => new RegExp(`^${page}$`)),
];

test("every registered route is described, and every description is served", async () => {
  const registered = [
    ...new Map(
      inspectRoutes(app).filter((r) => !r.isMiddleware)
        .map((r) => ({ method: r.method.toLowerCase(), path: openApiPath(r.path) }))
        .map((r) => [`${r.method} ${r.path}`, r]),
    ).values(),
  ];
  const described = Object.entries((await documentOf()).paths as Record<string, object>)
    .flatMap(([path, item]) => Object.keys(item).map((method) => ({ method, path })));
  const serves = (r: { method: string; path: string }, op: { method: string; path: string }) =>
    (r.method === "all" || r.method === op.method) &&
    (r.path.endsWith("/*") ? op.path.startsWith(r.path.slice(0, -1)) : r.path === op.path);
  const missing = registered.filter((r) => !UNDESCRIBED.some((u) => u.test(r.path)))
    .filter((r) => !described.some((op) => serves(r, op)));
  assert.deepEqual(missing, [], "registered but not described");
  assert.deepEqual(
    described.filter((op) => !registered.some((r) => serves(r, op))),
    [],
    "described, not served",
  );
  assert.ok(described.some((op) => op.path === "/api/api-keys/{id}" && op.method === "delete"));
});

test("/api/docs.json is valid OpenAPI 3.1 and names the vault's credentials", async () => {
  const document = await documentOf();
  const result = await new Validator().validate(structuredClone(document));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(document.components.securitySchemes.sessionCookie.name, "vault.session_token");
  assert.deepEqual(document.paths["/api/api-keys"].post.security, [{ sessionCookie: [] }]);
  assert.deepEqual(document.paths["/api/me"].get.security, [{ sessionCookie: [] }, { apiKey: [] }]);
  const patch400 = JSON.stringify(document.paths["/api/admin/users/{id}"].patch.responses["400"]);
  assert.match(patch400, /LastAdminProtected/);
  assert.match(patch400, /ValidationError/);
});
