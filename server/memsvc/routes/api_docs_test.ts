import assert from "node:assert/strict";
import { test } from "node:test";
import { appForMode } from "../openapi/_test_app.ts";
import { DOCS_CSP } from "../../../internal/openapi/mod.ts";

test("/api-docs from source: the page and its files, read from node_modules, under the CSP", async () => {
  const app = appForMode("user");
  const page = await app.request("/api-docs");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-security-policy"), DOCS_CSP);
  assert.equal(page.headers.get("cache-control"), "no-cache");
  const html = await page.text();
  const refs = [...html.matchAll(/(?:src|href)="(api-docs\/[^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(refs.map((r) => r.split("?")[0]), [
    "api-docs/swagger-ui.css",
    "api-docs/swagger-ui-bundle.js",
    "api-docs/init.js",
  ]);
  for (const ref of refs) {
    const res = await app.request(`/${ref}`);
    assert.equal(res.status, 200, ref);
    assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.ok((await res.arrayBuffer()).byteLength > 0);
  }
  const bundle = await app.request("/api-docs/swagger-ui-bundle.js");
  assert.match(bundle.headers.get("content-type")!, /^text\/javascript/);
  assert.match(await bundle.text(), /SwaggerUIBundle/);
  // Without the current hash in the URL a file is revalidated instead of cached for good.
  const stale = await app.request("/api-docs/init.js?v=0000");
  assert.equal(stale.headers.get("cache-control"), "no-cache");
  await stale.body?.cancel();
  assert.equal((await app.request("/api-docs/index.html")).status, 404);
});

test("the start-up script is a file of its own and sends the document nowhere else", async () => {
  const app = appForMode("none");
  const init = await (await app.request("/api-docs/init.js")).text();
  assert.match(init, /url: "openapi\.json"/);
  assert.match(init, /validatorUrl: null/);
  assert.doesNotMatch(await (await app.request("/api-docs")).text(), /<script>/);
});
