import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { createApp } from "../http/mod.ts";
import { silentLogger } from "../log/mod.ts";
import type { AuthEnv, CallerVia } from "./caller.ts";
import { csrfGuard, type CsrfOptions } from "./csrf.ts";

function appWith(options: CsrfOptions) {
  return (via: CallerVia | undefined, method: string, headers: Record<string, string> = {}) => {
    const api = new Hono<AuthEnv>()
      .use(async (c, next) => {
        c.set("caller", via && { userId: "u", email: "u@example.test", role: "user", via });
        await next();
      })
      .use(csrfGuard(options))
      .all("/x", (c) => c.json({ ok: true }));
    const app = createApp({ log: silentLogger }).route("/", api);
    return app.request("/x", { method, headers }, { remoteAddr: "127.0.0.1" });
  };
}

const ORIGIN = "http://127.0.0.1:7779";

test("cookie writes from a foreign origin or a cross-site page are refused; reads and bearers pass", async () => {
  const call = appWith({ trustedOrigins: [`${ORIGIN}/`] });
  assert.equal((await call("cookie", "POST", { origin: ORIGIN })).status, 200);
  assert.equal((await call("cookie", "POST", { origin: "https://evil.example" })).status, 403);
  assert.equal((await call("cookie", "DELETE", { "sec-fetch-site": "cross-site" })).status, 403);
  assert.equal((await call("cookie", "GET", { origin: "https://evil.example" })).status, 200);
  assert.equal((await call("api-token", "POST", { origin: "https://evil.example" })).status, 200);
  assert.equal((await call(undefined, "POST", { origin: "https://evil.example" })).status, 200);
});

test("with requireHeader, a cookie write also needs that header; bearer writes do not", async () => {
  const call = appWith({ trustedOrigins: [ORIGIN], requireHeader: "X-Requested-With" });
  const refused = await call("cookie", "POST", { origin: ORIGIN });
  assert.equal(refused.status, 403);
  assert.match((await refused.json()).error, /X-Requested-With/);
  assert.equal((await call("cookie", "PATCH", { origin: ORIGIN, "x-requested-with": "fetch" })).status, 200);
  assert.equal((await call("cookie", "GET", {})).status, 200);
  assert.equal((await call("api-token", "POST", {})).status, 200);
});
