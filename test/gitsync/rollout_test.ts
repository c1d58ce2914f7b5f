/**
 * A rollout on a cluster with workloads (kube-apiserver, controllers, scheduler, kwok nodes), as the
 * Application's service account: pre-sync hooks, waves, prune and post-sync hooks each Healthy before
 * the next; a failing hook stops the rollout with HookFailed and nothing after it is applied; a retry
 * reruns only the failed hook.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { rolloutGroups } from "../../controller/gitsync/rollout/groups.ts";
import { type RolloutState, rolloutStep, type StepResult } from "../../controller/gitsync/rollout/rollout.ts";
import { KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { type KubeApiServer, POD_OUTCOME_ANNOTATION, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";

const NS = "shop";
const MANAGED = { "sync.gitsync.io/application": "shop" };

const job = (name: string, hook: string, fail = false): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name, labels: MANAGED, annotations: { "sync.gitsync.io/hook": hook } },
  spec: {
    backoffLimit: 0,
    template: {
      metadata: fail ? { annotations: { [POD_OUTCOME_ANNOTATION]: "fail" } } : {},
      spec: { restartPolicy: "Never", containers: [{ name: "run", image: "registry.example/tools:1" }] },
    },
  },
});
const deployment = (name: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: MANAGED },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "app", image: "registry.example/app:1" }] },
    },
  },
});
const configMap = (name: string, wave?: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    labels: MANAGED,
    ...(wave ? { annotations: { "sync.gitsync.io/sync-wave": wave } } : {}),
  },
  data: { a: "1" },
});

describe("rollout of a Revision on a cluster with workloads", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let sa: KubeClient;
  const inventory = async () =>
    (await admin.request<{ items: KubeObject[] }>({
      path: `/api/v1/namespaces/${NS}/configmaps`,
      query: { labelSelector: "sync.gitsync.io/application=shop" },
    })).items.map((o) => ({ ...o, apiVersion: "v1", kind: "ConfigMap" }));

  /** Steps until complete or failed (a reconcile loop in miniature), recording what it waited for. */
  async function rollout(
    desired: KubeObject[],
    state: RolloutState,
    waits: string[] = [],
    prune = true,
  ): Promise<StepResult> {
    const groups = rolloutGroups(desired);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await rolloutStep({
        client: sa,
        rolloutOf: "revision-under-test",
        groups,
        state,
        conflictPolicy: "fail",
        namespace: NS,
        inventory,
        prune,
        desired,
      });
      if (r.outcome !== "progressing") return r;
      if (waits.at(-1) !== r.waitingFor) waits.push(r.waitingFor);
      state = r.state;
      if (Date.now() > deadline) throw new Error(`still waiting for ${r.waitingFor}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }
  const get = (path: string) => admin.request<KubeObject>({ path });

  before(async () => {
    k8s = await startKubeApiServer({ workloads: true });
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await createNamespace(admin, NS, { forPods: true });
    sa = await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: ["", "apps", "batch"], resources: ["configmaps", "deployments", "jobs"], verbs: ["*"] },
    ]);
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/configmaps`,
      body: configMap("retired"),
    });
  });
  after(async () => {
    sa?.close();
    admin?.close();
    await k8s?.stop();
  });

  it("runs pre-sync hooks, waves, prune and post-sync hooks in order, each Healthy before the next", async () => {
    const waits: string[] = [];
    const r = await rollout(
      [job("smoke", "post-sync"), deployment("web"), configMap("settings", "-1"), job("migrate", "pre-sync")],
      { rollout: 1, group: 0, hooks: [] },
      waits,
    );
    assert.equal(r.outcome, "complete", JSON.stringify(r));
    // It waited for the migration before anything else, and for the Deployment before the smoke test.
    const firstMigrate = waits.findIndex((w) => w.startsWith("Job/shop/migrate"));
    const firstWeb = waits.findIndex((w) => w.startsWith("Deployment/shop/web"));
    const firstSmoke = waits.findIndex((w) => w.startsWith("Job/shop/smoke"));
    assert.ok(firstMigrate === 0 && firstMigrate < firstWeb && firstWeb < firstSmoke, waits.join("\n"));
    const migrate = await get(`/apis/batch/v1/namespaces/${NS}/jobs/migrate`);
    const web = await get(`/apis/apps/v1/namespaces/${NS}/deployments/web`);
    const completed = (migrate.status as { completionTime: string }).completionTime;
    assert.ok(
      Date.parse(web.metadata!.creationTimestamp!) >= Date.parse(completed) - 1000,
      "web created after migrate completed",
    );
    assert.deepEqual(r.state.hooks.map((h) => `${h.stage} ${h.name} ${h.state}`), [
      "pre-sync migrate Succeeded",
      "post-sync smoke Succeeded",
    ]);
    // Prune removed the ConfigMap the Revision no longer has.
    assert.deepEqual((await inventory()).map((o) => o.metadata?.name).sort(), ["settings"]);
  });

  it("with prune off (spec.sync.prune: false) a managed object the Revision no longer has stays", async () => {
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/configmaps`,
      body: configMap("kept"),
    });
    const r = await rollout([configMap("settings")], { rollout: 1, group: 0, hooks: [] }, [], false);
    assert.equal(r.outcome, "complete", JSON.stringify(r));
    assert.ok((await inventory()).some((o) => o.metadata?.name === "kept"));
  });

  it("a failing pre-sync hook fails the rollout with HookFailed; nothing after it is applied", async () => {
    const r = await rollout([job("bad-migrate", "pre-sync", true), deployment("api")], {
      rollout: 1,
      group: 0,
      hooks: [],
    });
    assert.equal(r.outcome, "failed");
    assert.equal(r.outcome === "failed" && r.failure.reason, "HookFailed");
    assert.match(
      r.outcome === "failed" ? r.failure.message : "",
      /^pre-sync hook Job\/shop\/bad-migrate failed: job failed: BackoffLimitExceeded/,
    );
    await assert.rejects(get(`/apis/apps/v1/namespaces/${NS}/deployments/api`), /NotFound/);
  });

  it("a retry reruns only the failed hook", async () => {
    const first = await rollout(
      [job("seed", "pre-sync"), job("flaky", "pre-sync", true), deployment("cart")],
      {
        rollout: 1,
        group: 0,
        hooks: [],
      },
    );
    assert.equal(first.outcome, "failed");
    const seedUid = (await get(`/apis/batch/v1/namespaces/${NS}/jobs/seed`)).metadata?.uid;
    const flakyUid = (await get(`/apis/batch/v1/namespaces/${NS}/jobs/flaky`)).metadata?.uid;
    // Retry (the next rollout attempt); the hook's cause was fixed meanwhile.
    const second = await rollout([job("seed", "pre-sync"), job("flaky", "pre-sync"), deployment("cart")], {
      ...first.state,
      rollout: 2,
    });
    assert.equal(second.outcome, "complete", JSON.stringify(second));
    assert.equal(
      (await get(`/apis/batch/v1/namespaces/${NS}/jobs/seed`)).metadata?.uid,
      seedUid,
      "seed not rerun",
    );
    assert.notEqual(
      (await get(`/apis/batch/v1/namespaces/${NS}/jobs/flaky`)).metadata?.uid,
      flakyUid,
      "flaky rerun",
    );
    assert.deepEqual(second.state.hooks.map((h) => `${h.name} ${h.state} ${h.rollout}`), [
      "seed Succeeded 1",
      "flaky Succeeded 2",
    ]);
  });
});
