/** The informer's 410 Gone path, which a real server produces only after etcd compaction. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeApiServer } from "./_fake_api_server.ts";
import { KubeClient } from "./client.ts";
import { Informer, type InformerEvent, withoutFieldBookkeeping } from "./informer.ts";

const cm = (name: string, rv: string, app = "one") => ({
  metadata: { name, namespace: "ns", resourceVersion: rv, labels: { app } },
});

test("a watch answered with 410 Gone makes the informer list again and report what changed", async () => {
  let lists = 0;
  const fake = await startFakeApiServer((req) => {
    if (!req.url.includes("watch=true")) {
      lists++;
      // The second list: a was deleted and b changed while the watch was gone.
      const items = lists === 1 ? [cm("a", "1"), cm("b", "2")] : [cm("b", "7", "two"), cm("c", "8")];
      return {
        body: { kind: "ConfigMapList", metadata: { resourceVersion: lists === 1 ? "2" : "8" }, items },
      };
    }
    if (lists === 1) {
      assert.match(req.url, /resourceVersion=2&allowWatchBookmarks=true/);
      return {
        contentType: "application/json",
        body: JSON.stringify({
          type: "ERROR",
          object: {
            kind: "Status",
            code: 410,
            reason: "Expired",
            message: "too old resource version: 2 (5)",
          },
        }) + "\n",
      };
    }
    return { contentType: "application/json", body: "" };
  });
  const client = new KubeClient(fake.config());
  const informer = new Informer(client, {
    path: "/api/v1/namespaces/ns/configmaps",
    indexBy: (o) => o.metadata?.labels?.app,
  });
  const events: string[] = [];
  informer.onEvent((e: InformerEvent) => events.push(`${e.type} ${e.object.metadata?.name}`));
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await informer.synced;
  const byApp = (app: string) => informer.byIndex(app).map((o) => o.metadata?.name).sort();
  assert.deepEqual(byApp("one"), ["a", "b"]);
  while (informer.lists < 2) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  await running;
  client.close();
  await fake.close();
  assert.deepEqual(events, ["add a", "add b", "delete a", "update b", "add c"]);
  assert.deepEqual(informer.list().map((o) => o.metadata?.name).sort(), ["b", "c"]);
  // The index follows deletes and changed values.
  assert.deepEqual(byApp("one"), ["c"]);
  assert.deepEqual(byApp("two"), ["b"]);
  assert.deepEqual(byApp("three"), []);
});

test("withoutFieldBookkeeping drops managedFields and kubectl's last-applied annotation, nothing else", () => {
  const o = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "a",
      namespace: "ns",
      resourceVersion: "3",
      labels: { app: "web" },
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        "sync.gitsync.io/approved-by": "bob",
      },
      managedFields: [{ manager: "kubectl", operation: "Apply" }],
    },
    data: { k: "v" },
  };
  assert.deepEqual(withoutFieldBookkeeping(o), {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "a",
      namespace: "ns",
      resourceVersion: "3",
      labels: { app: "web" },
      annotations: { "sync.gitsync.io/approved-by": "bob" },
    },
    data: { k: "v" },
  });
  assert.equal(o.metadata.managedFields.length, 1, "the input is left as it was");
  assert.ok("kubectl.kubernetes.io/last-applied-configuration" in o.metadata.annotations);
});
