/**
 * internal/k8s against a real kube-apiserver (test/harness/k8s.ts): authentication (client
 * certificate, bearer token, exec plugin), discovery of built-ins and a CRD created here, server-side
 * and client-side apply, delete, watch, events, and the errors users see (Forbidden, NotFound).
 * One API server serves the whole file.
 */
import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  applyObject,
  deleteObject,
  discoverResources,
  discoveryFor,
  formatServerTable,
  getObject,
  getTable,
  KubeApiError,
  KubeClient,
  KubeConnectionError,
  type KubeObject,
  LAST_APPLIED_ANNOTATION,
  listEvents,
  listObjects,
  NoKindMatchError,
  patchStatusLocked,
  serverVersion,
  UnknownResourceTypeError,
} from "../../internal/k8s/mod.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

const FM = "k8s-client-test";

function configMap(name: string, data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data, ...extra };
}

const WIDGET_CRD: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wd"] },
    scope: "Namespaced",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
        },
      },
      additionalPrinterColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    }],
  },
};

describe("internal/k8s against kube-apiserver", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let dir: string;
  const clients: KubeClient[] = [];
  const client = (c: KubeClient) => (clients.push(c), c);

  before(async () => {
    k8s = await startKubeApiServer();
    admin = client(KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath }));
    dir = await mkdtemp(join(tmpdir(), "k8s-client-test-"));
  });

  after(async () => {
    for (const c of clients) c.close();
    await k8s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reads /version over TLS with the admin client certificate", async () => {
    const v = await serverVersion(admin);
    assert.equal(v.gitVersion, "v1.34.4");
    assert.equal(v.major, "1");
  });

  it("honours tls-server-name and insecure-skip-tls-verify, and explains TLS failures", async () => {
    const base = admin.config;
    const withCluster = (cluster: Partial<typeof base.cluster>) =>
      client(new KubeClient({ ...base, cluster: { ...base.cluster, ...cluster } }));
    // The serving certificate is for 127.0.0.1 and localhost.
    assert.equal((await serverVersion(withCluster({ tlsServerName: "localhost" }))).major, "1");
    await assert.rejects(serverVersion(withCluster({ tlsServerName: "wrong.example" })), (err: unknown) => {
      assert.ok(err instanceof KubeConnectionError);
      assert.match(
        err.message,
        new RegExp(`^unable to connect to the server at ${base.cluster.server}: .*wrong\\.example`),
      );
      return true;
    });
    await assert.rejects(serverVersion(withCluster({ caData: undefined })), {
      message:
        `unable to connect to the server at ${base.cluster.server}: tls: failed to verify certificate: certificate signed by unknown authority`,
    });
    assert.equal(
      (await serverVersion(withCluster({ caData: undefined, insecureSkipTlsVerify: true }))).major,
      "1",
    );
  });

  it("discovers built-in resources and resolves kubectl's type words", async () => {
    const d = discoveryFor(admin);
    // "configmaps.v1." is kubectl's fully qualified form for the core group.
    for (const word of ["configmaps", "configmap", "cm", "ConfigMap", "CM", "configmaps.v1."]) {
      assert.equal((await d.mapper()).find(word)?.resource, "configmaps", word);
    }
    const deploy = await d.resolve("deploy");
    assert.deepEqual([deploy.group, deploy.version, deploy.resource, deploy.namespaced], [
      "apps",
      "v1",
      "deployments",
      true,
    ]);
    assert.equal((await d.resolve("deployments.apps")).kind, "Deployment");
    assert.equal((await d.resolve("deployments.v1.apps")).kind, "Deployment");
    assert.equal((await d.resolve("ns")).namespaced, false);
    // "events" exists in core and events.k8s.io: the core group comes first, as in kubectl.
    assert.equal((await d.resolve("events")).group, "");
    assert.equal((await d.resolve("events.events.k8s.io")).group, "events.k8s.io");
    assert.equal((await d.forKind("rbac.authorization.k8s.io/v1", "ClusterRole")).resource, "clusterroles");
    await assert.rejects(d.resolve("deploymnts"), (err: unknown) => {
      assert.ok(err instanceof UnknownResourceTypeError);
      assert.equal(err.suggestion, "deployments");
      assert.match(err.message, /doesn't have a resource type "deploymnts"; did you mean "deployments"\?/);
      return true;
    });
    await assert.rejects(d.forKind("example.com/v1", "Gadget"), NoKindMatchError);
  });

  it("finds a CRD created after the first discovery, by plural, short name and kind", async () => {
    const d = discoveryFor(admin);
    await d.mapper();
    assert.equal((await d.mapper()).find("wd"), undefined);
    await applyObject(admin, WIDGET_CRD, { fieldManager: FM, serverSide: true });
    await waitFor(async () => {
      const crd = await getObject(admin, await d.resolve("crd"), "widgets.example.com");
      const conds = (crd.status as { conditions?: { type: string; status: string }[] })?.conditions ?? [];
      return conds.some((c) => c.type === "Established" && c.status === "True");
    });
    // The API server publishes a new resource in discovery a moment after Established (asynchronously):
    // wait for that with a discovery of our own, so `d`'s cached mapper still lacks it and must refresh.
    await waitFor(async () =>
      (await discoverResources(admin)).resources.some((r) => r.resource === "widgets")
    );
    const widgets = await d.resolve("wd");
    assert.deepEqual(
      [widgets.group, widgets.version, widgets.resource, widgets.kind, widgets.singular, widgets.namespaced],
      ["example.com", "v1", "widgets", "Widget", "widget", true],
    );
    assert.equal((await d.resolve("Widget")).resource, "widgets");
    assert.equal((await d.resolve("widgets.example.com")).resource, "widgets");
    assert.equal((await d.forKind("example.com/v1", "Widget")).resource, "widgets");

    // The CRD's printer column comes through the server-rendered table.
    await applyObject(admin, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1" },
      spec: { size: 3 },
    }, { fieldManager: FM, serverSide: true });
    const out = formatServerTable(await getTable(admin, widgets, { allNamespaces: true }), {
      withNamespace: true,
    });
    const lines = out.trimEnd().split("\n");
    assert.match(lines[0]!, /^NAMESPACE {3}NAME {3}SIZE {3}AGE$/);
    assert.match(lines[1]!, /^default {5}w1 {5}3 {6}\d+s$/);
  });

  it("server-side apply creates, updates, and reports conflicts unless forced", async () => {
    const r1 = await applyObject(admin, configMap("ssa", { a: "1" }), { fieldManager: FM, serverSide: true });
    assert.equal(r1.action, "serverside-applied");
    assert.equal(r1.object.metadata?.namespace, "default");
    const r2 = await applyObject(admin, configMap("ssa", { b: "2" }), { fieldManager: FM, serverSide: true });
    // The manager owned "a" and no longer applies it, so the server removes it.
    assert.deepEqual(r2.object.data, { b: "2" });
    await assert.rejects(
      applyObject(admin, configMap("ssa", { b: "3" }), { fieldManager: "other", serverSide: true }),
      (err: unknown) => err instanceof KubeApiError && err.reason === "Conflict" && err.status === 409,
    );
    const r3 = await applyObject(admin, configMap("ssa", { b: "3" }), {
      fieldManager: "other",
      serverSide: true,
      force: true,
    });
    assert.deepEqual(r3.object.data, { b: "3" });
  });

  it("client-side apply creates, leaves unchanged, updates and removes fields dropped from the manifest", async () => {
    const cm = await discoveryFor(admin).resolve("cm");
    const created = await applyObject(admin, configMap("csa", { a: "1", b: "2" }), { fieldManager: FM });
    assert.equal(created.action, "created");
    const annotation = created.object.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
    assert.deepEqual(JSON.parse(annotation!).data, { a: "1", b: "2" });

    assert.equal(
      (await applyObject(admin, configMap("csa", { a: "1", b: "2" }), { fieldManager: FM })).action,
      "unchanged",
    );

    // A field someone else added survives; the field removed from the manifest goes.
    await admin.request({
      method: "PATCH",
      path: "/api/v1/namespaces/default/configmaps/csa",
      body: { data: { other: "x" } },
      contentType: "application/merge-patch+json",
    });
    const updated = await applyObject(admin, configMap("csa", { a: "10" }), { fieldManager: FM });
    assert.equal(updated.action, "configured");
    assert.deepEqual(updated.object.data, { a: "10", other: "x" });
    const live = await getObject(admin, cm, "csa");
    assert.deepEqual(JSON.parse(live.metadata!.annotations![LAST_APPLIED_ANNOTATION]!).data, { a: "10" });
  });

  it("lists with label selectors and all namespaces, and deletes", async () => {
    const d = discoveryFor(admin);
    const cm = await d.resolve("cm");
    await applyObject(admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }, {
      fieldManager: FM,
      serverSide: true,
    });
    for (const [ns, name] of [["default", "l1"], ["team-a", "l2"], ["team-a", "l3"]]) {
      await applyObject(
        admin,
        configMap(name!, {}, { metadata: { name, namespace: ns, labels: { app: "web" } } }),
        {
          fieldManager: FM,
          serverSide: true,
        },
      );
    }
    const names = (l: { items: KubeObject[] }) => l.items.map((i) => i.metadata?.name).sort();
    assert.deepEqual(names(await listObjects(admin, cm, { labelSelector: "app=web" })), ["l1"]);
    assert.deepEqual(names(await listObjects(admin, cm, { namespace: "team-a", labelSelector: "app=web" })), [
      "l2",
      "l3",
    ]);
    // A page size of 1 makes the list follow continue tokens.
    assert.deepEqual(
      names(await listObjects(admin, cm, { allNamespaces: true, labelSelector: "app=web", chunkSize: 1 })),
      ["l1", "l2", "l3"],
    );
    await deleteObject(admin, cm, "l2", { namespace: "team-a", propagationPolicy: "Background" });
    await assert.rejects(
      getObject(admin, cm, "l2", { namespace: "team-a" }),
      (err: unknown) =>
        err instanceof KubeApiError && err.reason === "NotFound" &&
        err.message === `Error from server (NotFound): configmaps "l2" not found`,
    );
    await assert.rejects(
      deleteObject(admin, cm, "l2", { namespace: "team-a" }),
      (err: unknown) => err instanceof KubeApiError && err.status === 404,
    );
  });

  it("watches a collection", async () => {
    const cm = await discoveryFor(admin).resolve("cm");
    const list = await listObjects(admin, cm, { namespace: "default" });
    const watcher = client(KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath }));
    const events = watcher.watch<KubeObject>("/api/v1/namespaces/default/configmaps", {
      resourceVersion: list.metadata?.resourceVersion,
    });
    const next = events.next();
    await applyObject(admin, configMap("watched", { a: "1" }), { fieldManager: FM, serverSide: true });
    const first = await next;
    assert.equal(first.value?.type, "ADDED");
    assert.equal(first.value?.object.metadata?.name, "watched");
    await events.return(undefined);
  });

  it("lists the events of an object", async () => {
    const obj =
      (await applyObject(admin, configMap("with-events", {}), { fieldManager: FM, serverSide: true }))
        .object;
    const ev = await discoveryFor(admin).resolve("ev");
    for (const [i, reason] of ["First", "Second"].entries()) {
      await applyObject(admin, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `with-events.${i}` },
        involvedObject: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "with-events",
          namespace: "default",
          uid: obj.metadata!.uid,
        },
        reason,
        message: `${reason} thing happened`,
        type: "Normal",
        lastTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString().replace(/\.\d+Z$/, "Z"),
      }, { fieldManager: FM, serverSide: true });
    }
    await applyObject(admin, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "unrelated.0" },
      involvedObject: { apiVersion: "v1", kind: "ConfigMap", name: "csa", namespace: "default" },
      reason: "Other",
    }, { fieldManager: FM, serverSide: true });
    assert.equal(ev.resource, "events");
    const events = await listEvents(admin, obj);
    assert.deepEqual(events.map((e) => e.reason), ["First", "Second"]);
  });

  it("patchStatusLocked: a write built from a stale copy is refused (409) and built again from a fresh read", async () => {
    const path = "/api/v1/namespaces/default/services/locked";
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces/default/services",
      body: { metadata: { name: "locked" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } },
    });
    const stale = await admin.request<KubeObject & { status?: Record<string, unknown> }>({ path });
    // Another writer moves the object on (and sets a field of the status list it will not rewrite).
    await admin.request({
      method: "PATCH",
      path: `${path}/status`,
      contentType: "application/merge-patch+json",
      body: { status: { loadBalancer: { ingress: [{ ip: "10.0.0.1", hostname: "lb.example" }] } } },
    });
    const seen: string[] = [];
    await patchStatusLocked(admin, path, stale, (current) => {
      const ingress = (current.status?.loadBalancer as { ingress?: unknown[] } | undefined)?.ingress ?? [];
      seen.push(`${ingress.length}`);
      return { loadBalancer: { ingress: [...ingress, { ip: "10.0.0.2" }] } };
    });
    assert.deepEqual(
      seen,
      ["0", "1"],
      "built from the stale copy, refused (409), built again from a fresh one",
    );
    const after = await admin.request<{ status: { loadBalancer: { ingress: { ip: string }[] } } }>({ path });
    assert.deepEqual(after.status.loadBalancer.ingress.map((i) => i.ip), ["10.0.0.1", "10.0.0.2"]);
  });

  it("a user without RBAC bindings gets Forbidden with the server's reason", async () => {
    const limited = client(KubeClient.fromKubeconfig({ path: await k8s.userKubeconfig("limited") }));
    const cm = await discoveryFor(admin).resolve("cm");
    await assert.rejects(listObjects(limited, cm, { namespace: "default" }), (err: unknown) => {
      assert.ok(err instanceof KubeApiError);
      assert.equal(err.status, 403);
      assert.equal(err.reason, "Forbidden");
      assert.equal(
        err.message,
        `Error from server (Forbidden): configmaps is forbidden: User "limited" cannot list resource "configmaps" in API group "" in the namespace "default"`,
      );
      return true;
    });
  });

  it("authenticates with a bearer token and a token file, and with an exec plugin", async () => {
    const sa = await discoveryFor(admin).resolve("sa");
    await applyObject(admin, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot" } }, {
      fieldManager: FM,
      serverSide: true,
    });
    const tr = await admin.request<{ status: { token: string } }>({
      method: "POST",
      path: "/api/v1/namespaces/default/serviceaccounts/robot/token",
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      },
    });
    const token = tr.status.token;
    assert.ok(token);
    const base = admin.config;
    const robotUser = "system:serviceaccount:default:robot";

    const byToken = client(new KubeClient({ ...base, user: { name: "robot", token } }));
    await assert.rejects(
      listObjects(byToken, sa, {}),
      (err: unknown) =>
        err instanceof KubeApiError && err.reason === "Forbidden" && err.message.includes(robotUser),
    );
    // Grant it reading: the same token now lists. (The built-in "view" role is aggregated by the
    // controller manager, which the harness does not run, so a Role of our own.)
    await applyObject(admin, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps", "serviceaccounts"], verbs: ["get", "list"] }],
    }, { fieldManager: FM, serverSide: true });
    await applyObject(admin, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "robot-reader" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      subjects: [{ kind: "ServiceAccount", name: "robot", namespace: "default" }],
    }, { fieldManager: FM, serverSide: true });
    const cm = await discoveryFor(admin).resolve("cm");
    await waitFor(async () => {
      try {
        await listObjects(byToken, cm, {});
        return true;
      } catch {
        return false;
      }
    });

    const tokenFile = join(dir, "token");
    await writeFile(tokenFile, `${token}\n`);
    const byFile = client(new KubeClient({ ...base, user: { name: "robot", tokenFile } }));
    assert.ok((await listObjects(byFile, cm, {})).items.length > 0);

    // An exec plugin handing out the same token (v1, env passed through).
    const plugin = join(dir, "plugin.sh");
    await writeFile(
      plugin,
      `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$ROBOT_TOKEN"\n`,
    );
    await chmod(plugin, 0o755);
    const byExec = client(
      new KubeClient({
        ...base,
        user: {
          name: "robot",
          exec: {
            apiVersion: "client.authentication.k8s.io/v1",
            command: plugin,
            args: [],
            env: [{ name: "ROBOT_TOKEN", value: token }],
            provideClusterInfo: false,
            interactiveMode: "Never",
          },
        },
      }),
    );
    assert.ok((await listObjects(byExec, cm, {})).items.length > 0);
  });

  it("an exec plugin can hand out a client certificate", async () => {
    const { readFile } = await import("node:fs/promises");
    const [cert, key] = await Promise.all([
      readFile(k8s.clientCertFile, "utf8"),
      readFile(k8s.clientKeyFile, "utf8"),
    ]);
    const credFile = join(dir, "cred.json");
    await writeFile(
      credFile,
      JSON.stringify({
        apiVersion: "client.authentication.k8s.io/v1beta1",
        kind: "ExecCredential",
        status: { clientCertificateData: cert, clientKeyData: key },
      }),
    );
    const c = client(
      new KubeClient({
        ...admin.config,
        user: {
          name: "exec-cert",
          exec: {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "cat",
            args: [credFile],
            env: [],
            provideClusterInfo: true,
            interactiveMode: "IfAvailable",
          },
        },
      }),
    );
    assert.equal((await serverVersion(c)).gitVersion, "v1.34.4");
    const ns = await discoveryFor(c).resolve("ns");
    assert.ok((await listObjects(c, ns)).items.some((n) => n.metadata?.name === "kube-system"));
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
