/**
 * The sandbox process run from source (the runtime running this test starts sandbox_entry.ts): the
 * protocol round trip with a host API call, and the time limit killing a plugin that loops. The
 * compiled binary's path (`vault __plugin-sandbox`) is covered black-box by test/vault/plugins_test.ts.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { silentLogger } from "../../../internal/log/mod.ts";
import { PluginProcess } from "./plugin_process.ts";

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugin-process-"));
  await writeFile(
    join(dir, "server.js"),
    `export function activate(api) {
      api.routes.register("GET", "/echo", async (req) => ({ got: req.query.q, stored: await api.storage.get("k") }));
      api.routes.register("GET", "/spin", () => { for (;;) {} });
    }`,
  );
});

after(() => rm(dir, { recursive: true, force: true }));

function start(failures: string[], routes: string[]) {
  return new PluginProcess({
    pluginId: "t",
    dir,
    timeoutMs: 3_000,
    memoryMb: 512,
    log: silentLogger,
    onApi: (method, args, call) => Promise.resolve({ method, args, call }),
    onDeclare: (d) => d.t === "route" && routes.push(`${d.method} ${d.path}`),
    onFailure: (reason) => failures.push(reason),
  });
}

test("a route call round-trips, with a host API call made under it", async () => {
  const failures: string[] = [];
  const routes: string[] = [];
  const p = start(failures, routes);
  try {
    await p.call({ t: "activate", entry: join(dir, "server.js"), plugin: { id: "t", version: "1.0.0" } });
    assert.deepEqual(routes, ["GET /echo", "GET /spin"]);
    const id = p.nextCallId();
    const answer = await p.call({
      t: "route",
      route: "GET /echo",
      request: { method: "GET", path: "/echo", query: { q: "x" }, body: null, user: { id: "u" } },
    }, id);
    // The host API call carried the id of the route call it ran under.
    assert.deepEqual(answer, { got: "x", stored: { method: "storage.get", args: ["k", null], call: id } });
  } finally {
    await p.stop();
  }
  assert.deepEqual(failures, []);
});

test("a call past the time limit kills the sandbox and says why", async () => {
  const failures: string[] = [];
  const p = start(failures, []);
  await p.call({ t: "activate", entry: join(dir, "server.js"), plugin: { id: "t", version: "1.0.0" } });
  const request = { method: "GET", path: "/spin", query: {}, body: null, user: { id: "u" } };
  await assert.rejects(
    p.call({ t: "route", route: "GET /spin", request }),
    /longer than its limit of 3000 ms/,
  );
  await p.exited;
  assert.equal(failures.length, 1);
  await assert.rejects(p.call({ t: "route", route: "GET /spin", request }), /not running/);
});

test("host API calls past 64 at once are refused, not queued", async () => {
  await writeFile(
    join(dir, "flood.js"),
    `export function activate(api) {
      api.routes.register("GET", "/flood", async () => {
        const all = await Promise.allSettled(Array.from({ length: 100 }, () => api.storage.get("k")));
        return all.filter((r) => r.status === "rejected").map((r) => r.reason.message);
      });
    }`,
  );
  const release: (() => void)[] = [];
  const p = new PluginProcess({
    pluginId: "t",
    dir,
    timeoutMs: 5_000,
    memoryMb: 512,
    log: silentLogger,
    // The vault's side holds every call until the test lets them go.
    onApi: () => new Promise((resolve) => release.push(() => resolve(null))),
    onDeclare: () => {},
    onFailure: () => {},
  });
  try {
    await p.call({ t: "activate", entry: join(dir, "flood.js"), plugin: { id: "t", version: "1.0.0" } });
    const request = { method: "GET", path: "/flood", query: {}, body: null, user: { id: "u" } };
    const answer = p.call({ t: "route", route: "GET /flood", request });
    while (release.length < 64) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(release.length, 64);
    for (const r of release) r();
    const refused = await answer as string[];
    assert.equal(refused.length, 36);
    assert.match(refused[0]!, /more than 64 host API calls at once/);
  } finally {
    await p.stop();
  }
});
