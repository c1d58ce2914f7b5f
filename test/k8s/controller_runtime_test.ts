/**
 * internal/k8s's controller pieces against kube-apiserver: an informer's cache and events, and leader
 * election on a Lease between two candidates (failover when the leader stops, and when it dies), and
 * acting as a service account through impersonation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  EventRecorder,
  Informer,
  type InformerEvent,
  KubeClient,
  listEvents,
  runLeaderElection,
} from "../../internal/k8s/mod.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("controller runtime against kube-apiserver", () => {
  let k8s: KubeApiServer;
  let client: KubeClient;
  const cms = "/api/v1/namespaces/default/configmaps";

  before(async () => {
    k8s = await startKubeApiServer();
    client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  });
  after(async () => {
    client?.close();
    await k8s?.stop();
  });

  it("an informer lists, then sees creates, updates and deletes through its watch", async () => {
    for (const name of ["one", "two"]) {
      await client.request({ method: "POST", path: cms, body: { metadata: { name, labels: { app: "x" } } } });
    }
    await client.request({ method: "POST", path: cms, body: { metadata: { name: "other" } } });
    const informer = new Informer(client, { path: cms, labelSelector: "app=x", pageSize: 1 });
    const events: string[] = [];
    informer.onEvent((e: InformerEvent) => events.push(`${e.type} ${e.object.metadata?.name}`));
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.synced;
    assert.deepEqual(events.sort(), ["add one", "add two"], "listed in pages of one, selector applied");
    events.length = 0;
    await client.request({
      method: "POST",
      path: cms,
      body: { metadata: { name: "three", labels: { app: "x" } } },
    });
    await client.request({
      method: "PATCH",
      path: `${cms}/one`,
      contentType: "application/merge-patch+json",
      body: { data: { k: "v" } },
    });
    await client.request({ method: "DELETE", path: `${cms}/two` });
    await until("three events", () => events.length >= 3);
    assert.deepEqual(events, ["add three", "update one", "delete two"]);
    assert.deepEqual(informer.get("default/one")?.data, { k: "v" });
    assert.equal(informer.get("default/two"), undefined);
    stop.abort();
    await running;
  });

  const candidate = (identity: string, log: string[], signal: AbortSignal) =>
    runLeaderElection(client, {
      namespace: "default",
      name: "gitsync-manager",
      identity,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 200,
      onStartedLeading: () => log.push(`${identity} leads`),
      onStoppedLeading: () => log.push(`${identity} stopped`),
    }, signal);

  it("one of two candidates leads; when it stops, the other takes over at once", async () => {
    const log: string[] = [];
    const a = new AbortController();
    const b = new AbortController();
    const ra = candidate("a", log, a.signal);
    await until("a leads", () => log.includes("a leads"));
    const rb = candidate("b", log, b.signal);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.deepEqual(log, ["a leads"], "b waits while a renews");
    const stoppedAt = Date.now();
    a.abort();
    await ra;
    await until("b leads", () => log.includes("b leads"));
    assert.ok(Date.now() - stoppedAt < 1_500, "a released the Lease, so b did not wait a lease duration");
    const lease = await client.request<{ spec: { holderIdentity: string; leaseTransitions: number } }>({
      path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/gitsync-manager",
    });
    assert.equal(lease.spec.holderIdentity, "b");
    assert.ok(lease.spec.leaseTransitions >= 1);
    b.abort();
    await rb;
    assert.deepEqual(log, ["a leads", "a stopped", "b leads", "b stopped"]);
  });

  it("a leader that dies without releasing is replaced after the lease duration", async () => {
    const now = new Date().toISOString().replace("Z", "000Z");
    await client.request({
      method: "POST",
      path: "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      body: {
        metadata: { name: "dead-leader" },
        spec: { holderIdentity: "ghost", leaseDurationSeconds: 2, acquireTime: now, renewTime: now },
      },
    });
    const log: string[] = [];
    const c = new AbortController();
    const started = Date.now();
    const rc = runLeaderElection(client, {
      namespace: "default",
      name: "dead-leader",
      identity: "c",
      retryPeriodMs: 200,
      onStartedLeading: () => log.push("c leads"),
    }, c.signal);
    await until("c leads", () => log.includes("c leads"), 10_000);
    const waited = Date.now() - started;
    assert.ok(waited >= 1_900, `waited ${waited} ms for the ghost's lease to run out`);
    c.abort();
    await rc;
  });

  it("a client impersonating a service account is authorized as that account", async () => {
    const sa = "system:serviceaccount:default:deployer";
    const asDeployer = client.impersonating({ user: sa });
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "by-deployer" }, data: { a: "1" } };
    await assert.rejects(
      asDeployer.request({ method: "POST", path: cms, body: cm }),
      /Error from server \(Forbidden\): configmaps is forbidden: User "system:serviceaccount:default:deployer" cannot create/,
    );
    await client.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
      body: {
        metadata: { name: "cm-writer" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["*"] }],
      },
    });
    await client.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
      body: {
        metadata: { name: "deployer" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm-writer" },
        subjects: [{ kind: "ServiceAccount", name: "deployer", namespace: "default" }],
      },
    });
    const created = await until("RBAC takes effect", async () => {
      try {
        return await asDeployer.request<{ metadata: { managedFields: { manager: string }[] } }>({
          method: "PATCH",
          path: `${cms}/by-deployer`,
          query: { fieldManager: "gitsync", force: false },
          contentType: "application/apply-patch+yaml",
          body: cm,
        });
      } catch {
        return undefined;
      }
    });
    assert.deepEqual(created.metadata.managedFields.map((f) => f.manager), ["gitsync"]);
    asDeployer.close();
  });

  it("events: recorded on the object, redacted, and a repeat counted instead of added", async () => {
    const cm = await client.request<
      { apiVersion: string; kind: string; metadata: { name: string; namespace: string; uid: string } }
    >({
      method: "POST",
      path: cms,
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "evented" } },
    });
    const events = new EventRecorder(client, {
      component: "gitsync-manager",
      redact: (t) => t.replace(/token=\S+/g, "token=REDACTED"),
    });
    const obj = { ...cm, apiVersion: "v1", kind: "ConfigMap" };
    await events.warning(obj, "HookFailed", "hook failed with token=abc123");
    await events.warning(obj, "HookFailed", "hook failed with token=abc123");
    await events.normal(obj, "RolloutComplete", "all groups Healthy");
    const seen = await listEvents(client, obj);
    // Both events can share one lastTimestamp second, so the list order is not theirs to keep.
    assert.deepEqual(
      seen.map((e) => `${e.type} ${e.reason} ${e.count} ${e.message}`).sort(),
      ["Normal RolloutComplete 1 all groups Healthy", "Warning HookFailed 2 hook failed with token=REDACTED"],
    );
  });
});
