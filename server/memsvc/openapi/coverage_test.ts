/**
 * Route coverage: every route the memsvc app registers is described in the /openapi.json it serves
 * (minus the explicit UNDESCRIBED_ROUTES), and every described operation is served by a registered
 * route. Routes are read from Hono's own table (app.routes), so a route added without a spec fails.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectRoutes } from "hono/dev";
import { UNDESCRIBED_ROUTES } from "../routes/api_docs.ts";
import { appForMode, documentOf, type Mode, type OpenApiDoc } from "./_test_app.ts";
import { openApiPath } from "../../../internal/openapi/mod.ts";

interface Route {
  method: string;
  path: string;
}

/** The handlers (not middleware) the app registers, in OpenAPI path syntax. */
function registeredRoutes(app: ReturnType<typeof appForMode>): Route[] {
  const routes = inspectRoutes(app).filter((r) => !r.isMiddleware)
    .map((r) => ({ method: r.method.toLowerCase(), path: openApiPath(r.path) }));
  return [...new Map(routes.map((r) => [`${r.method} ${r.path}`, r])).values()];
}

function describedOperations(document: OpenApiDoc): Route[] {
  return Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method, path }))
  );
}

/** Whether registered route `r` serves described operation `op` (a wildcard serves what is below it). */
function serves(r: Route, op: Route): boolean {
  if (r.method !== "all" && r.method !== op.method) return false;
  if (r.path.endsWith("/*")) return op.path.startsWith(r.path.slice(0, -1));
  return r.path === op.path;
}

const undescribed = (r: Route) => UNDESCRIBED_ROUTES.some((u) => u.path.test(r.path));

/**
 * In bearer and none modes /api/auth, /v1/me/tokens and rotate-token answer 404 with an explanation
 * (no users to sign in); those stand-ins are not API and are not described.
 */
const MODE_STANDINS: Record<Mode, string[]> = {
  user: [],
  bearer: ["all /api/auth/*", "all /v1/me/tokens/*", "all /v1/me/tokens", "all /v1/auth/rotate-token"],
  none: ["all /api/auth/*", "all /v1/me/tokens/*", "all /v1/me/tokens", "all /v1/auth/rotate-token"],
};

for (const mode of ["user", "bearer", "none"] as const) {
  test(`every registered route is described, and every description is served (${mode} mode)`, async () => {
    const app = appForMode(mode);
    const registered = registeredRoutes(app);
    const described = describedOperations(await documentOf(app));

    const missing = registered
      .filter((r) => !undescribed(r) && !MODE_STANDINS[mode].includes(`${r.method} ${r.path}`))
      .filter((r) => !described.some((op) => serves(r, op)));
    assert.deepEqual(missing, [], "registered but not in /openapi.json");

    const unserved = described.filter((op) => !registered.some((r) => serves(r, op)));
    assert.deepEqual(unserved, [], "in /openapi.json but not registered");
  });
}

test("the coverage check sees every kind of route: a plain, a parameterised, a wildcard and the MCP ones", () => {
  const registered = registeredRoutes(appForMode("user"));
  const has = (method: string, path: string) =>
    registered.some((r) => r.method === method && r.path === path);
  assert.ok(has("get", "/health"));
  assert.ok(has("delete", "/v1/me/tokens/{tokenHash}"));
  assert.ok(has("all", "/api/auth/*"));
  assert.ok(has("post", "/mcp") && has("get", "/mcp/sse") && has("post", "/mcp/messages"));
  assert.ok(has("get", "/openapi.json") && has("get", "/api-docs"));
  // Middleware (guards, caller resolution) is not mistaken for a route.
  assert.ok(!registered.some((r) => r.path === "/v1/*"));
});

test("every allowlisted /api/auth route is described, and nothing else under /api/auth", async () => {
  const { ADMIN_ROUTES, SELF_SERVICE_ROUTES } = await import("../auth/allowlist.ts");
  const described = describedOperations(await documentOf(appForMode("user")))
    .filter((op) => op.path.startsWith("/api/auth/"))
    .map((op) => `${op.method.toUpperCase()} ${op.path.slice("/api/auth".length)}`).sort();
  assert.deepEqual(described, [...SELF_SERVICE_ROUTES, ...ADMIN_ROUTES].sort());
});
