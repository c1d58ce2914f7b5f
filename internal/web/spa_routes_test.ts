import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { appAssets } from "./app_bundle.ts";
import { spaRoutes } from "./spa_routes.ts";
import { loadWebFiles, webAsset } from "./web_asset.ts";

const CSP = "default-src 'none'; script-src 'self'";
const js = webAsset(new TextEncoder().encode("go()"), "text/javascript; charset=utf-8");
const app = spaRoutes({
  base: "/app",
  csp: CSP,
  assets: {
    [`app.${js.hash}.js`]: { asset: js, immutable: true },
    "icon.svg": {
      asset: { body: new TextEncoder().encode("<svg/>"), type: "image/svg+xml" },
      maxAgeSeconds: 60,
    },
  },
  page: "<!doctype html><p>app</p>",
  notBuilt: "run the build\n",
});

test("every client-side route gets the page, revalidated, under the CSP", async () => {
  for (const path of ["/app", "/app/", "/app/notes/a", "/app/x?y=1"]) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-security-policy"), CSP);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    assert.equal(await res.text(), "<!doctype html><p>app</p>");
  }
});

test("assets are served by name with their cache policy; other names are 404 under the CSP", async () => {
  const res = await app.request(`/app/assets/app.${js.hash}.js`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(await res.text(), "go()");
  assert.equal(
    (await app.request("/app/assets/icon.svg")).headers.get("cache-control"),
    "public, max-age=60",
  );
  for (const name of ["app.js", "constructor", "__proto__", "..%2Fspa_routes.ts"]) {
    const miss = await app.request(`/app/assets/${name}`);
    assert.equal(miss.status, 404, name);
    assert.equal(miss.headers.get("content-security-policy"), CSP);
  }
});

test("an app that is not built answers 503 with the build hint", async () => {
  const res = await spaRoutes({ base: "/app", csp: CSP, assets: {}, page: undefined, notBuilt: "build it\n" })
    .request("/app/");
  assert.equal(res.status, 503);
  assert.equal(await res.text(), "build it\n");
});

test("loadWebFiles reads every named file from the folder, or nothing when one is missing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "web-files-"));
  writeFileSync(join(dir, "a.js"), "x");
  assert.equal(await loadWebFiles(["a.js", "a.css"], dir), undefined);
  writeFileSync(join(dir, "a.css"), "y");
  const files = await loadWebFiles(["a.js", "a.css"], dir);
  assert.equal(new TextDecoder().decode(files!["a.css"]), "y");
  // sha256("x") starts with 2d711642b726
  assert.equal(webAsset(files!["a.js"]!, "text/javascript").hash, "2d711642b726");
});

test("an app at the root serves its named routes and assets only, so other paths stay 404", async () => {
  const root = spaRoutes({
    base: "/",
    csp: CSP,
    assets: { [`app.${js.hash}.js`]: { asset: js, immutable: true } },
    page: "<!doctype html><p>root</p>",
    notBuilt: "build it\n",
    pages: ["/", "/settings"],
  });
  for (const path of ["/", "/settings", "/?note=a.md"]) {
    const res = await root.request(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-security-policy"), CSP);
  }
  assert.equal(await (await root.request(`/assets/app.${js.hash}.js`)).text(), "go()");
  assert.equal((await root.request("/assets/nope.js")).status, 404);
  assert.equal((await root.request("/api/unknown")).status, 404);
});

test("appAssets: the icon for a day, and the built script and stylesheet under their hashed names", () => {
  const css = webAsset(new TextEncoder().encode("a{}"), "text/css; charset=utf-8");
  const built = appAssets("app", { js, css }, "<svg/>");
  assert.deepEqual(Object.keys(built).sort(), [`app.${css.hash}.css`, `app.${js.hash}.js`, "icon.svg"]);
  assert.equal(built["icon.svg"]!.maxAgeSeconds, 86400);
  assert.equal(built[`app.${js.hash}.js`]!.immutable, true);
  assert.deepEqual(
    Object.keys(appAssets("app", undefined, "<svg/>")),
    ["icon.svg"],
    "not built: the icon only",
  );
});
