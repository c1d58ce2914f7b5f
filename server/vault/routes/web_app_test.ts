import assert from "node:assert/strict";
import { test } from "node:test";
import { webAsset } from "../../../internal/web/mod.ts";
import { webAppRoutes } from "./web_app.ts";

const bundle = {
  js: webAsset(new TextEncoder().encode("app()"), "text/javascript; charset=utf-8"),
  css: webAsset(new TextEncoder().encode("p{}"), "text/css; charset=utf-8"),
};

test("the page names its hashed files and the configured OAuth providers, under the CSP", async () => {
  const app = webAppRoutes({ bundle, csp: "default-src 'self'", oauthProviders: ["github", "google"] });
  for (const path of ["/", "/settings", "/admin"]) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-security-policy"), "default-src 'self'");
    const html = await res.text();
    assert.match(html, /<meta name="vault-oauth" content="github google">/);
    assert.match(html, new RegExp(`src="/assets/vault\\.${bundle.js.hash}\\.js"`));
    assert.doesNotMatch(html, /<script>/, "no inline script");
  }
  assert.equal(await (await app.request(`/assets/vault.${bundle.js.hash}.js`)).text(), "app()");
  assert.equal((await app.request("/api/nothing")).status, 404);
  assert.equal((await app.request("/notes/x")).status, 404);
});

test("without a bundle the page says how to build it", async () => {
  const res = await webAppRoutes({ bundle: undefined, csp: "default-src 'self'", oauthProviders: [] })
    .request("/");
  assert.equal(res.status, 503);
  assert.match(await res.text(), /deno task build vault/);
});
