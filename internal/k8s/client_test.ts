import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { freePort } from "../http/free_port.ts";
import { startFakeApiServer } from "./_fake_api_server.ts";
import { KubeClient } from "./client.ts";
import { KubeApiError, KubeConnectionError } from "./errors.ts";

const dir = mkdtempSync(join(tmpdir(), "kube-client-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const notFound = {
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  message: 'configmaps "x" not found',
  reason: "NotFound",
  details: { name: "x", kind: "configmaps" },
  code: 404,
};

describe("KubeClient", () => {
  it("sends method, path under the server's base path, query, JSON body and bearer token", async () => {
    const api = await startFakeApiServer(() => ({ body: { ok: true } }));
    const client = new KubeClient(api.config({ token: "s3cret" }, "/k8s/clusters/c-1"), { userAgent: "t/1" });
    try {
      const out = await client.request({
        method: "POST",
        path: "/api/v1/namespaces/default/configmaps",
        query: { fieldManager: "t", dryRun: undefined, force: true, labelSelector: ["a=1", "b=2"] },
        body: { kind: "ConfigMap" },
      });
      assert.deepEqual(out, { ok: true });
      const seen = api.requests[0]!;
      assert.equal(seen.method, "POST");
      assert.equal(
        seen.url,
        "/k8s/clusters/c-1/api/v1/namespaces/default/configmaps?fieldManager=t&force=true&labelSelector=a%3D1&labelSelector=b%3D2",
      );
      assert.equal(seen.headers.authorization, "Bearer s3cret");
      assert.equal(seen.headers["content-type"], "application/json");
      assert.equal(seen.headers["user-agent"], "t/1");
      assert.deepEqual(JSON.parse(seen.body), { kind: "ConfigMap" });
    } finally {
      client.close();
      await api.close();
    }
  });

  it("uses basic auth, and re-reads a token file when it changes", async () => {
    const api = await startFakeApiServer(() => ({ body: {} }));
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, "one\n");
    const basic = new KubeClient(api.config({ username: "ann", password: "pw" }));
    const byFile = new KubeClient(api.config({ tokenFile }));
    try {
      await basic.request({ path: "/version" });
      assert.equal(
        api.requests[0]!.headers.authorization,
        `Basic ${Buffer.from("ann:pw").toString("base64")}`,
      );
      await byFile.request({ path: "/version" });
      writeFileSync(tokenFile, "two\n");
      utimesSync(tokenFile, new Date(), new Date(Date.now() + 5000));
      await byFile.request({ path: "/version" });
      assert.deepEqual(api.requests.slice(1).map((r) => r.headers.authorization), [
        "Bearer one",
        "Bearer two",
      ]);
    } finally {
      basic.close();
      byFile.close();
      await api.close();
    }
  });

  it("turns a Status into KubeApiError with kubectl's wording", async () => {
    const api = await startFakeApiServer((req) =>
      req.url.startsWith("/api/v1") ? { status: 404, body: notFound } : req.url === "/denied"
        ? {
          status: 401,
          body: { kind: "Status", message: "Unauthorized", reason: "Unauthorized", code: 401 },
        }
        : { status: 404, contentType: "text/plain", body: "404 page not found\n" }
    );
    const client = new KubeClient(api.config());
    try {
      await assert.rejects(
        client.request({ path: "/api/v1/namespaces/default/configmaps/x" }),
        (err: unknown) => {
          assert.ok(err instanceof KubeApiError);
          assert.deepEqual([err.status, err.reason, err.serverMessage], [
            404,
            "NotFound",
            'configmaps "x" not found',
          ]);
          assert.deepEqual(err.details, { name: "x", kind: "configmaps" });
          assert.equal(err.message, 'Error from server (NotFound): configmaps "x" not found');
          return true;
        },
      );
      await assert.rejects(client.request({ path: "/denied" }), {
        message: "You must be logged in to the server (Unauthorized)",
      });
      await assert.rejects(client.request({ path: "/apis/nope" }), {
        message: "Error from server (NotFound): 404 page not found",
      });
    } finally {
      client.close();
      await api.close();
    }
  });

  it("waits and retries when throttled (429), then reports the server's answer", async () => {
    let calls = 0;
    const api = await startFakeApiServer(() => {
      calls++;
      return calls <= 2
        ? {
          status: 429,
          headers: { "Retry-After": "0" },
          body: { kind: "Status", reason: "TooManyRequests", message: "slow down" },
        }
        : { body: { ok: calls } };
    });
    const client = new KubeClient(api.config());
    try {
      assert.deepEqual(await client.request({ path: "/x" }), { ok: 3 });
      calls = 0;
      // Throttled three times in a row: give up with the server's reason.
      const stubborn = await startFakeApiServer(() => ({
        status: 429,
        headers: { "Retry-After": "0" },
        body: { kind: "Status", reason: "TooManyRequests", message: "slow down" },
      }));
      const c2 = new KubeClient(stubborn.config());
      await assert.rejects(c2.request({ path: "/x" }), {
        message: "Error from server (TooManyRequests): slow down",
      });
      assert.equal(stubborn.requests.length, 3);
      c2.close();
      await stubborn.close();
    } finally {
      client.close();
      await api.close();
    }
  });

  it("after a 401, runs the exec plugin again and retries once", async () => {
    const counter = join(dir, "count");
    const plugin = join(dir, "plugin.sh");
    writeFileSync(counter, "");
    writeFileSync(
      plugin,
      `#!/bin/sh\necho x >> ${counter}\nn=$(wc -l < ${counter} | tr -d ' ')\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t%s"}}' "$n"\n`,
    );
    chmodSync(plugin, 0o755);
    const api = await startFakeApiServer((req) =>
      req.headers.authorization === "Bearer t2" ? { body: { ok: 1 } } : { status: 401, body: {} }
    );
    const client = new KubeClient(
      api.config({
        exec: {
          apiVersion: "client.authentication.k8s.io/v1",
          command: plugin,
          args: [],
          env: [],
          provideClusterInfo: false,
          interactiveMode: "Never",
        },
      }),
    );
    try {
      assert.deepEqual(await client.request({ path: "/x" }), { ok: 1 });
      assert.deepEqual(await client.request({ path: "/x" }), { ok: 1 });
      assert.deepEqual(api.requests.map((r) => r.headers.authorization), [
        "Bearer t1",
        "Bearer t2",
        "Bearer t2",
      ]);
    } finally {
      client.close();
      await api.close();
    }
  });

  it("streams a watch as events; a refusal throws before the first event", async () => {
    const events = [
      { type: "ADDED", object: { metadata: { name: "a" } } },
      { type: "DELETED", object: { metadata: { name: "a" } } },
    ];
    const api = await startFakeApiServer((req) =>
      req.url.includes("/forbidden")
        ? { status: 403, body: { kind: "Status", reason: "Forbidden", message: "no watching" } }
        : { body: events.map((e) => JSON.stringify(e)).join("\n") + "\n" }
    );
    const client = new KubeClient(api.config());
    try {
      const seen = [];
      for await (const e of client.watch("/api/v1/configmaps", { resourceVersion: "5" })) seen.push(e);
      assert.deepEqual(seen, events);
      assert.equal(api.requests[0]!.url, "/api/v1/configmaps?resourceVersion=5&watch=true");
      const forbidden = client.watch("/api/v1/forbidden");
      await assert.rejects(forbidden.next(), { message: "Error from server (Forbidden): no watching" });
    } finally {
      client.close();
      await api.close();
    }
  });

  it("explains a server that cannot be reached", async () => {
    const port = await freePort();
    const api = await startFakeApiServer(() => ({}));
    const base = api.config();
    await api.close();
    const client = new KubeClient({
      ...base,
      cluster: { ...base.cluster, server: `https://127.0.0.1:${port}` },
    });
    await assert.rejects(client.request({ path: "/version" }), (err: unknown) => {
      assert.ok(err instanceof KubeConnectionError);
      assert.equal(
        err.message,
        `unable to connect to the server at https://127.0.0.1:${port}: connection refused`,
      );
      return true;
    });
  });

  it("gives up on a server that does not answer in time", async () => {
    const { createServer } = await import("node:net");
    const sockets: import("node:net").Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as import("node:net").AddressInfo).port;
    const api = await startFakeApiServer(() => ({}));
    const base = api.config();
    await api.close();
    const client = new KubeClient({
      ...base,
      cluster: { ...base.cluster, server: `http://127.0.0.1:${port}` },
    }, {
      timeoutMs: 200,
    });
    try {
      await assert.rejects(client.request({ path: "/version" }), {
        message: `unable to connect to the server at http://127.0.0.1:${port}: request timed out after 0.2 s`,
      });
    } finally {
      client.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
