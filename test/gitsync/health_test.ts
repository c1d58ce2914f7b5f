/**
 * gitsync's health rules on live objects, as real controllers report them: kube-apiserver with the
 * workload controllers, kube-scheduler and kwok nodes (test/harness/k8s.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assessHealth, type Health } from "../../controller/gitsync/health/assess.ts";
import { KubeClient } from "../../internal/k8s/mod.ts";
import {
  type KubeApiServer,
  POD_OUTCOME_ANNOTATION,
  type PodOutcome,
  startKubeApiServer,
} from "../harness/k8s.ts";
import { createNamespace } from "../harness/k8s_fixtures.ts";

const NS = "health";

function deployment(name: string, outcome?: PodOutcome, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 2,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: {
          labels: { app: name },
          ...(outcome ? { annotations: { [POD_OUTCOME_ANNOTATION]: outcome } } : {}),
        },
        spec: { containers: [{ name: "app", image: "registry.example/app:1" }], ...extra },
      },
    },
  };
}

describe("health of live workloads", () => {
  let k8s: KubeApiServer;
  let client: KubeClient;
  const health = async (path: string): Promise<Health> => assessHealth(await client.request({ path }));
  const settles = async (path: string, want: Health["status"]): Promise<Health> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const h = await health(path);
      if (h.status === want || Date.now() > deadline) return h;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  before(async () => {
    k8s = await startKubeApiServer({ workloads: true });
    client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await createNamespace(client, NS, { forPods: true });
  });
  after(async () => {
    client?.close();
    await k8s?.stop();
  });

  it("a Deployment is Progressing, then Healthy once its replicas are available", async () => {
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
    await client.request({
      method: "POST",
      path: `/apis/apps/v1/namespaces/${NS}/deployments`,
      body: deployment("web"),
    });
    assert.equal((await health(path)).status, "Progressing");
    assert.deepEqual(await settles(path, "Healthy"), { status: "Healthy", message: "" });
  });

  it("a crash-looping Deployment stays Progressing and its Pods are Degraded with the reason", async () => {
    await client.request({
      method: "POST",
      path: `/apis/apps/v1/namespaces/${NS}/deployments`,
      body: deployment("crasher", "crashloop"),
    });
    const pods = async () =>
      (await client.request<{ items: Record<string, unknown>[] }>({
        path: `/api/v1/namespaces/${NS}/pods`,
        query: { labelSelector: "app=crasher" },
      })).items;
    const deadline = Date.now() + 20_000;
    let found: Health | undefined;
    while (!found && Date.now() < deadline) {
      // Items of a List carry no kind: the caller knows it.
      found = (await pods()).map((p) => assessHealth({ ...p, kind: "Pod" })).find((h) =>
        h.status === "Degraded"
      );
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(
      found?.message ?? "",
      /^container app: CrashLoopBackOff: back-off 40s restarting failed container=app/,
    );
    assert.equal((await health(`/apis/apps/v1/namespaces/${NS}/deployments/crasher`)).status, "Progressing");
  });

  it("a failing Job is Degraded with the controller's reason; a completed one Healthy", async () => {
    for (const [name, outcome] of [["ok", undefined], ["broken", "fail"]] as const) {
      await client.request({
        method: "POST",
        path: `/apis/batch/v1/namespaces/${NS}/jobs`,
        body: {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name },
          spec: {
            backoffLimit: 0,
            template: {
              metadata: outcome ? { annotations: { [POD_OUTCOME_ANNOTATION]: outcome } } : {},
              spec: {
                restartPolicy: "Never",
                containers: [{ name: "run", image: "registry.example/job:1" }],
              },
            },
          },
        },
      });
    }
    assert.equal((await settles(`/apis/batch/v1/namespaces/${NS}/jobs/ok`, "Healthy")).status, "Healthy");
    const broken = await settles(`/apis/batch/v1/namespaces/${NS}/jobs/broken`, "Degraded");
    assert.equal(broken.status, "Degraded");
    assert.match(broken.message, /^job failed: BackoffLimitExceeded/);
  });

  it("an unschedulable Pod is Progressing with the scheduler's message", async () => {
    await client.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/pods`,
      body: {
        metadata: { name: "nowhere" },
        spec: {
          nodeSelector: { disk: "ssd" },
          containers: [{ name: "app", image: "registry.example/app:1" }],
        },
      },
    });
    const deadline = Date.now() + 20_000;
    let h = await health(`/api/v1/namespaces/${NS}/pods/nowhere`);
    while (!h.message.startsWith("unschedulable") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      h = await health(`/api/v1/namespaces/${NS}/pods/nowhere`);
    }
    assert.equal(h.status, "Progressing");
    assert.match(h.message, /^unschedulable: 0\/2 nodes are available/);
  });
});
