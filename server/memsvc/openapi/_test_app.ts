/**
 * Test helper: the real memsvc app of a mode, built with stand-ins for the parts that only act when
 * a request arrives (store, services), so the routes it registers and the document it serves can be
 * inspected without a database.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { createMemsvcApp, type MemsvcAppDeps } from "../app.ts";
import { TokenBuckets } from "../../../internal/http/mod.ts";
import { loadMemsvcConfig } from "../config.ts";
import { createMemsvcAuth } from "../auth/memsvc_auth.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";

export type Mode = "user" | "bearer" | "none";

const unused = {} as never;

export function appForMode(mode: Mode, baseUrl = "http://127.0.0.1:7778"): Hono<AppEnv> {
  const config = loadMemsvcConfig({
    MEMSVC_AUTH_MODE: mode,
    MEMSVC_COOKIE_SECRET: "openapi-test-cookie-secret-0123456789abcdef",
    MEMSVC_AUTH_TOKEN: "openapi-test-shared-token-0123456789abcdef",
    MEMSVC_BASE_URL: baseUrl,
  });
  const limiter = () => TokenBuckets.perPeriod(10, 60_000);
  const deps: MemsvcAppDeps = {
    config,
    log: silentLogger,
    store: { database: { db: unused, backend: "pglite" } } as never,
    auth: mode === "user"
      ? createMemsvcAuth({
        db: unused,
        secret: config.MEMSVC_COOKIE_SECRET!,
        baseURL: baseUrl,
        trustedOrigins: [],
        log: silentLogger,
      })
      : undefined,
    tokens: unused,
    operator: { userId: "operator", email: "operator@localhost", role: "admin" },
    limiters: { signIn: limiter(), password: limiter(), rotate: limiter() },
    memory: unused,
    search: unused,
    activity: unused,
    mcp: { registry: unused, server: { embedder: { id: "test" }, index: unused } as never },
    maintenance: unused,
    metrics: new MemsvcMetrics(),
  };
  return createMemsvcApp(deps);
}

/** A parsed document: tests walk it freely. */
// deno-lint-ignore no-explicit-any
export type OpenApiDoc = { paths: any; [key: string]: any };

/** GET /openapi.json of `app`, parsed. */
export async function documentOf(app: Hono<AppEnv>): Promise<OpenApiDoc> {
  const res = await app.request("/openapi.json");
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}: ${await res.text()}`);
  return await res.json();
}
