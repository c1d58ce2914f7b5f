/**
 * dist/gitsync-manager console as a user runs it, from a directory without the sources: it refuses a
 * missing or short session key and half an OIDC configuration before listening, serves its embedded
 * pages under the strict CSP, answers /healthz, and refuses cross-site POSTs.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CONSOLE_CSP } from "../../controller/gitsync/console/page.ts";
import { runBinary, withBinary } from "../harness/binary.ts";

describe("gitsync-manager console (binary)", () => {
  let dir: string;
  let kubeconfig: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "console-bin-"));
    kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443" } }],
        users: [{ name: "u", user: {} }],
        contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
        "current-context": "c",
      }),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("is listed in --help and validates its flags before starting", async () => {
    const help = await runBinary("gitsync-manager", ["--help"]);
    assert.match(help.stdout, /console/);
    const noKey = await runBinary("gitsync-manager", ["console", "--kubeconfig", kubeconfig], { cwd: dir });
    assert.notEqual(noKey.code, 0);
    assert.match(noKey.stderr, /GITSYNC_CONSOLE_SESSION_KEY.*32 bytes/);
    const shortKey = await runBinary("gitsync-manager", ["console", "--kubeconfig", kubeconfig], {
      cwd: dir,
      env: { GITSYNC_CONSOLE_SESSION_KEY: "abc" },
    });
    assert.notEqual(shortKey.code, 0);
    assert.match(shortKey.stderr, /32 bytes/);
    const halfOidc = await runBinary("gitsync-manager", [
      "console",
      "--kubeconfig",
      kubeconfig,
      "--oidc-issuer",
      "https://login.example.test",
    ], { cwd: dir, env: { GITSYNC_CONSOLE_SESSION_KEY: "ab".repeat(32) } });
    assert.notEqual(halfOidc.code, 0);
    assert.match(halfOidc.stderr, /--oidc-issuer, --oidc-client-id and --oidc-redirect-url together/);
  });

  it("serves its embedded pages under the strict CSP, /healthz, and refuses cross-site POSTs", async () => {
    await withBinary(
      "gitsync-manager",
      ["console", "--kubeconfig", kubeconfig, "--bind-address", "127.0.0.1:0"],
      { cwd: dir, env: { GITSYNC_CONSOLE_SESSION_KEY: "ab".repeat(32) }, readyPath: "/healthz" },
      async (server) => {
        const page = await fetch(`${server.url}/ui/apps`);
        assert.equal(page.status, 200);
        assert.equal(page.headers.get("content-security-policy"), CONSOLE_CSP);
        const html = await page.text();
        const script = /src="(\/ui\/assets\/gitsync\.[0-9a-f]{12}\.js)"/.exec(html)?.[1];
        assert.ok(script, html);
        const js = await fetch(`${server.url}${script}`);
        assert.equal(js.status, 200);
        assert.match(js.headers.get("cache-control")!, /immutable/);
        assert.ok((await js.text()).length > 1000);
        const session = await fetch(`${server.url}/api/session`);
        assert.equal(session.status, 401);
        assert.deepEqual(await session.json(), { error: "not signed in", signIn: "token" });
        const crossSite = await fetch(`${server.url}/auth/token`, {
          method: "POST",
          headers: { "content-type": "application/json", "sec-fetch-site": "cross-site" },
          body: JSON.stringify({ token: "x" }),
        });
        assert.equal(crossSite.status, 403);
        assert.equal(crossSite.headers.get("content-security-policy"), CONSOLE_CSP);
        const tooBig = await fetch(`${server.url}/auth/token`, {
          method: "POST",
          headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
          body: JSON.stringify({ token: "t".repeat(16 * 1024 + 1) }),
        });
        assert.equal(tooBig.status, 401);
        assert.match((await tooBig.json()).error, /16 KiB/);
        assert.doesNotMatch(server.output(), /tttttttt/, "the token never reaches the log");
      },
    );
  });
});
