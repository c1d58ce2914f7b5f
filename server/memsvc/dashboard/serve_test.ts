import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DASHBOARD_CSP, type DashboardBundle, dashboardRoutes, loadDashboardBundle } from "./serve.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const bundle: DashboardBundle = {
  js: { body: enc("console.log(1)"), type: "text/javascript; charset=utf-8", hash: "aaaaaaaaaaaa" },
  css: { body: enc("body{}"), type: "text/css; charset=utf-8", hash: "bbbbbbbbbbbb" },
};

describe("dashboard routes", () => {
  const app = dashboardRoutes({ authMode: "user", enabled: true, bundle });

  it("serves the page for /admin and every client-side route, under the CSP, revalidated", async () => {
    for (const path of ["/admin", "/admin/", "/admin/projects", "/admin/graph?id=m_1"]) {
      const res = await app.request(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-security-policy"), DASHBOARD_CSP);
      assert.equal(res.headers.get("cache-control"), "no-cache");
      const html = await res.text();
      assert.match(html, /<script type="module" src="\/admin\/assets\/admin\.aaaaaaaaaaaa\.js"><\/script>/);
      assert.match(html, /href="\/admin\/assets\/admin\.bbbbbbbbbbbb\.css"/);
      assert.match(html, /<meta name="memsvc-auth-mode" content="user">/);
    }
  });

  it("serves assets by content hash, cached for good, and 404s any other name", async () => {
    const js = await app.request("/admin/assets/admin.aaaaaaaaaaaa.js");
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(await js.text(), "console.log(1)");
    const css = await app.request("/admin/assets/admin.bbbbbbbbbbbb.css");
    assert.equal(await css.text(), "body{}");
    for (const name of ["admin.000000000000.js", "admin.aaaaaaaaaaaa.css", "admin.js", "..%2Fserve.ts"]) {
      const res = await app.request(`/admin/assets/${name}`);
      assert.equal(res.status, 404, name);
      assert.equal(res.headers.get("content-security-policy"), DASHBOARD_CSP);
    }
  });

  it("tells the page the auth mode and the origins its writes must come from", async () => {
    const none = dashboardRoutes({ authMode: "none", enabled: true, bundle });
    assert.match(await (await none.request("/admin/")).text(), /content="none"/);
    const user = dashboardRoutes({
      authMode: "user",
      enabled: true,
      bundle,
      origins: ["http://127.0.0.1:7778/", 'https://a.example/x?y="<z>'],
    });
    assert.match(
      await (await user.request("/admin/")).text(),
      /<meta name="memsvc-origins" content="http:\/\/127\.0\.0\.1:7778 https:\/\/a\.example">/,
    );
  });

  it("answers 503 with the fix when the bundle is not built", async () => {
    const res = await dashboardRoutes({ authMode: "user", enabled: true, bundle: undefined }).request(
      "/admin/",
    );
    assert.equal(res.status, 503);
    assert.match(await res.text(), /deno task build memsvc/);
  });

  it("is off with MEMSVC_ADMIN_DASHBOARD=0", async () => {
    const off = dashboardRoutes({ authMode: "user", enabled: false, bundle });
    for (const path of ["/admin", "/admin/users", "/admin/assets/admin.aaaaaaaaaaaa.js"]) {
      assert.equal((await off.request(path)).status, 404, path);
    }
  });
});

describe("loadDashboardBundle", () => {
  it("reads admin.js and admin.css from a folder and hashes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dashboard-bundle-"));
    writeFileSync(join(dir, "admin.js"), "x");
    writeFileSync(join(dir, "admin.css"), "y");
    const b = await loadDashboardBundle(dir);
    assert.ok(b);
    // sha256("x") starts with 2d711642b726
    assert.equal(b.js.hash, "2d711642b726");
    assert.equal(new TextDecoder().decode(b.css.body), "y");
  });

  it("is undefined when the folder has no bundle", async () => {
    assert.equal(await loadDashboardBundle(mkdtempSync(join(tmpdir(), "dashboard-empty-"))), undefined);
  });
});
