import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { createApp } from "../http/mod.ts";
import { silentLogger } from "../log/mod.ts";
import type { AuthEnv } from "./caller.ts";
import { refuseReadOnlyWrites } from "./require.ts";
import { resolveCaller, type ResolveCallerOptions, sessionHeaders } from "./resolve_caller.ts";

const KEYS: Record<string, { scope: "read" | "read-write" }> = { key_good: { scope: "read" } };

function appWith(options: ResolveCallerOptions) {
  const api = new Hono<AuthEnv>()
    .use(resolveCaller(options), refuseReadOnlyWrites())
    .all("/who", (c) => c.json(c.get("caller") ?? null));
  const app = createApp({ log: silentLogger }).route("/", api);
  return (authorization?: string, method = "GET") =>
    app.request("/who", { method, headers: authorization ? { authorization } : {} }, {
      remoteAddr: "127.0.0.1",
    });
}

const apiTokens = {
  prefix: "key_",
  resolve: (token: string) =>
    Promise.resolve(
      KEYS[token] &&
        { userId: "u1", email: "u1@example.test", role: "user" as const, tokenHash: "h", ...KEYS[token] },
    ),
};

test("API tokens are resolved by prefix; unknown ones, malformed headers and other bearers are 401", async () => {
  const call = appWith({ mode: "user", apiTokens, sessionCookie: "tool.session_token" });
  const found = await call("Bearer key_good");
  assert.equal(found.status, 200);
  assert.deepEqual(await found.json(), {
    userId: "u1",
    email: "u1@example.test",
    role: "user",
    tokenHash: "h",
    scope: "read",
    via: "api-token",
  });
  assert.equal((await call("Bearer key_unknown")).status, 401);
  assert.equal((await call("Basic abc")).status, 401);
  assert.equal((await call("Bearer ns_session")).status, 401, "no session bearer prefix configured");
  assert.equal(await (await call()).json(), null, "no credential: no caller, the guards decide");
});

test("a read-scoped token may read but not write", async () => {
  const call = appWith({ mode: "user", apiTokens, sessionCookie: "tool.session_token" });
  assert.equal((await call("Bearer key_good", "GET")).status, 200);
  assert.equal((await call("Bearer key_good", "POST")).status, 403);
});

test("the operator modes: none acts as the operator; bearer needs the shared token", async () => {
  const operator = { userId: "op", email: "op@localhost", role: "admin" as const };
  assert.equal((await (await appWith({ mode: "none", operator })()).json()).via, "local");
  const bearer = appWith({ mode: "bearer", operator, sharedToken: "s".repeat(32) });
  assert.equal((await (await bearer(`Bearer ${"s".repeat(32)}`)).json()).via, "shared-bearer");
  assert.equal((await bearer(`Bearer ${"t".repeat(32)}`)).status, 401);
});

test("sessionHeaders hands the library only a session bearer, without its prefix", () => {
  const h = (authorization: string) => new Headers({ authorization, cookie: "a=b" });
  assert.equal(sessionHeaders(h("Bearer ns_abc"), "ns_").get("authorization"), "Bearer abc");
  assert.equal(sessionHeaders(h("Bearer nm_abc"), "ns_").get("authorization"), null);
  assert.equal(sessionHeaders(h("Bearer ns_abc"), undefined).get("authorization"), null);
  assert.equal(sessionHeaders(h("Bearer x"), "ns_").get("cookie"), "a=b");
});
