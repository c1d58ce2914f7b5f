/**
 * gitsync's writes as an Application's service account against kube-apiserver: a dry run that plans
 * without storing, Server-Side Apply for real, RBAC denial as Forbidden naming the object, and field
 * conflicts that fail unless conflictPolicy is adopt.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildPlan } from "../../controller/gitsync/plan/plan.ts";
import { applyObjects, RolloutFailure } from "../../controller/gitsync/rollout/apply.ts";
import { KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";

const NS = "team";
const cm = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name },
  data,
});

describe("rollout writes as the service account", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let deployer: KubeClient;
  const opts = { conflictPolicy: "fail" as const, defaultNamespace: NS };

  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await createNamespace(admin, NS);
    deployer = await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    ]);
    // What an earlier rollout applied.
    await applyObjects(deployer, [cm("existing", { a: "1" })], { ...opts, dryRun: false });
  });
  after(async () => {
    deployer?.close();
    admin?.close();
    await k8s?.stop();
  });

  it("a dry run plans create and update without storing anything", async () => {
    const changes = await applyObjects(deployer, [cm("fresh", { k: "v" }), cm("existing", { a: "2" })], {
      ...opts,
      dryRun: true,
    });
    const plan = buildPlan({ changes, prune: [], pruneSkipped: [], redact: (t) => t });
    assert.deepEqual(plan.entries.map((e) => `${e.action} ${e.name}`), ["update existing", "create fresh"]);
    assert.match(plan.entries[0]!.diff!, /^- {2}a: "1"$/m);
    assert.match(plan.entries[0]!.diff!, /^\+ {2}a: "2"$/m);
    await assert.rejects(admin.request({ path: `/api/v1/namespaces/${NS}/configmaps/fresh` }), /NotFound/);
  });

  it("applies for real with its own field manager", async () => {
    const [r] = await applyObjects(deployer, [cm("fresh", { k: "v" })], { ...opts, dryRun: false });
    const managers = (r!.after.metadata?.managedFields as { manager: string; operation: string }[])
      .map((f) => `${f.manager}/${f.operation}`);
    assert.deepEqual(managers, ["gitsync/Apply"]);
  });

  it("an object the service account may not write fails with Forbidden naming it", async () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "creds" }, stringData: { p: "x" } };
    await assert.rejects(applyObjects(deployer, [secret], { ...opts, dryRun: true }), (err) => {
      assert.ok(err instanceof RolloutFailure);
      assert.equal(err.reason, "Forbidden");
      assert.match(err.message, /^system:serviceaccount:team:deployer may not apply Secret\/team\/creds: /);
      assert.deepEqual(err.resource, { apiVersion: "v1", kind: "Secret", namespace: NS, name: "creds" });
      return true;
    });
  });

  it("a field another manager owns fails the apply unless conflictPolicy is adopt", async () => {
    await admin.request({
      method: "PATCH",
      path: `/api/v1/namespaces/${NS}/configmaps/owned`,
      query: { fieldManager: "kubectl" },
      contentType: "application/apply-patch+yaml",
      body: cm("owned", { mode: "manual" }),
    });
    await assert.rejects(
      applyObjects(deployer, [cm("owned", { mode: "gitops" })], { ...opts, dryRun: false }),
      (err) => {
        assert.ok(err instanceof RolloutFailure);
        assert.equal(err.reason, "ConflictFailure");
        assert.match(
          err.message,
          /ConfigMap\/team\/owned: fields are owned by another manager .*kubectl.*set conflictPolicy: adopt/,
        );
        return true;
      },
    );
    const [r] = await applyObjects(deployer, [cm("owned", { mode: "gitops" })], {
      ...opts,
      conflictPolicy: "adopt",
      dryRun: false,
    });
    assert.deepEqual(r!.after.data, { mode: "gitops" });
  });
});
