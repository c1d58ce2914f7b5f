/**
 * The workload test environment, seen as a user of the cluster sees it: kube-apiserver with
 * kube-controller-manager, kube-scheduler and kwok's fake nodes (test/harness/k8s.ts,
 * `workloads: true`). Deployments roll out, Jobs complete, and Pods fail the ways real ones do.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KubeClient } from "../../internal/k8s/mod.ts";
import {
  type KubeApiServer,
  POD_OUTCOME_ANNOTATION,
  type PodOutcome,
  startKubeApiServer,
} from "../harness/k8s.ts";

type Obj = {
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};
type Condition = { type: string; status: string; reason?: string; message?: string };
type ContainerStatus = { state?: { waiting?: { reason?: string }; terminated?: { exitCode: number } } };
type Pod = Obj & {
  spec: { nodeName?: string };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
  };
};

const NS = "workloads";

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not seen within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ""}`);
}

const condition = (o: { status?: { conditions?: Condition[] } }, type: string) =>
  o.status?.conditions?.find((c) => c.type === type);

function podTemplate(labels: Record<string, string>, outcome?: PodOutcome) {
  return {
    metadata: { labels, ...(outcome ? { annotations: { [POD_OUTCOME_ANNOTATION]: outcome } } : {}) },
    spec: { containers: [{ name: "app", image: "registry.example/app:1.0" }] },
  };
}

describe("workloads on kube-apiserver with controllers, scheduler and kwok nodes", () => {
  let k8s: KubeApiServer;
  let client: KubeClient;
  const create = (path: string, body: unknown) => client.request<Obj>({ method: "POST", path, body });
  const get = <T = Obj>(path: string) => client.request<T>({ path });
  const pods = async (selector: string) =>
    (await client.request<{ items: Pod[] }>({
      path: `/api/v1/namespaces/${NS}/pods`,
      query: { labelSelector: selector },
    })).items;

  before(async () => {
    k8s = await startKubeApiServer({ workloads: true });
    client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    // The ServiceAccount controller gives every new namespace its default account; Pods need it.
    await eventually(
      "the default ServiceAccount",
      () => get(`/api/v1/namespaces/${NS}/serviceaccounts/default`),
    );
  });
  after(async () => {
    client?.close();
    await k8s?.stop();
  });

  it("registers Ready fake nodes", async () => {
    const nodes = await get<{ items: Obj[] }>("/api/v1/nodes");
    assert.deepEqual(nodes.items.map((n) => n.metadata.name), k8s.nodes);
    for (const n of nodes.items) assert.equal(condition(n as never, "Ready")?.status, "True");
  });

  it("rolls a Deployment out to Ready replicas through a ReplicaSet", async () => {
    await create(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: podTemplate({ app: "web" }) },
    });
    const dep = await eventually("web available with 2 ready replicas", async () => {
      const d = await get(`/apis/apps/v1/namespaces/${NS}/deployments/web`);
      const s = d.status as { readyReplicas?: number; availableReplicas?: number };
      return s.readyReplicas === 2 && s.availableReplicas === 2 &&
          condition(d, "Available")?.status === "True"
        ? d
        : undefined;
    });
    assert.equal(condition(dep, "Progressing")?.reason, "NewReplicaSetAvailable");
    const rs = await get<{ items: Obj[] }>(`/apis/apps/v1/namespaces/${NS}/replicasets`);
    assert.equal(rs.items.filter((r) => r.metadata.name.startsWith("web-")).length, 1);
    const running = await pods("app=web");
    assert.equal(running.length, 2);
    for (const p of running) {
      assert.equal(p.status.phase, "Running");
      assert.equal(condition(p, "Ready")?.status, "True");
      assert.ok(k8s.nodes.includes(p.spec.nodeName!), `scheduled on a fake node, got ${p.spec.nodeName}`);
      assert.match(p.status.podIP ?? "", /^10\.244\./);
    }
  });

  it("completes a Job", async () => {
    await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "migrate" },
      spec: {
        backoffLimit: 0,
        template: {
          ...podTemplate({ job: "migrate" }),
          spec: { ...podTemplate({}).spec, restartPolicy: "Never" },
        },
      },
    });
    await eventually("migrate Complete", async () => {
      const job = await get(`/apis/batch/v1/namespaces/${NS}/jobs/migrate`);
      return condition(job, "Complete")?.status === "True" ? job : undefined;
    });
    const [pod] = await pods("job=migrate");
    assert.equal(pod?.status.phase, "Succeeded");
    assert.equal(pod?.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
  });

  it("fails a Job whose Pod exits 1", async () => {
    const template = podTemplate({ job: "broken" }, "fail");
    await create(`/apis/batch/v1/namespaces/${NS}/jobs`, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "broken" },
      spec: {
        backoffLimit: 0,
        template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } },
      },
    });
    const job = await eventually("broken Failed", async () => {
      const j = await get(`/apis/batch/v1/namespaces/${NS}/jobs/broken`);
      return condition(j, "Failed")?.status === "True" ? j : undefined;
    });
    assert.equal(condition(job, "Failed")?.reason, "BackoffLimitExceeded");
    const [pod] = await pods("job=broken");
    assert.equal(pod?.status.phase, "Failed");
    assert.equal(pod?.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 1);
  });

  it("shows a crash-looping Deployment as CrashLoopBackOff and never Available", async () => {
    await create(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "crasher" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "crasher" } },
        template: podTemplate({ app: "crasher" }, "crashloop"),
      },
    });
    const pod = await eventually("a CrashLoopBackOff Pod", async () => {
      const [p] = await pods("app=crasher");
      return p?.status.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff" ? p : undefined;
    });
    assert.equal(pod.status.phase, "Running");
    assert.equal(condition(pod, "Ready")?.status, "False");
    const dep = await get(`/apis/apps/v1/namespaces/${NS}/deployments/crasher`);
    assert.equal((dep.status as { readyReplicas?: number }).readyReplicas ?? 0, 0);
  });

  it("shows an image that cannot be pulled as ImagePullBackOff", async () => {
    await create(`/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "no-image",
        labels: { app: "no-image" },
        annotations: { [POD_OUTCOME_ANNOTATION]: "image-pull-backoff" },
      },
      spec: podTemplate({}).spec,
    });
    const pod = await eventually("ImagePullBackOff", async () => {
      const p = await get<Pod>(`/api/v1/namespaces/${NS}/pods/no-image`);
      return p.status.containerStatuses?.[0]?.state?.waiting?.reason === "ImagePullBackOff" ? p : undefined;
    });
    assert.equal(pod.status.phase, "Pending");
  });

  it("leaves a Pod no node fits Pending and Unschedulable, as kube-scheduler reports it", async () => {
    await create(`/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "nowhere" },
      spec: { ...podTemplate({}).spec, nodeSelector: { "disk": "ssd" } },
    });
    const pod = await eventually("PodScheduled False", async () => {
      const p = await get<Pod>(`/api/v1/namespaces/${NS}/pods/nowhere`);
      return condition(p, "PodScheduled")?.status === "False" ? p : undefined;
    });
    assert.equal(condition(pod, "PodScheduled")?.reason, "Unschedulable");
    assert.match(condition(pod, "PodScheduled")?.message ?? "", /didn't match Pod's node affinity\/selector/);
    assert.equal(pod.status.phase, "Pending");
  });

  it("serves Pod logs through pods/log, following new lines", async () => {
    const [pod] = await pods("app=web");
    const name = pod!.metadata.name;
    const t = new Date("2026-11-25T10:00:00Z");
    await k8s.setPodLogs({ namespace: NS, pod: name, lines: [{ time: t, text: "listening on :8080" }] });
    const logPath = `/api/v1/namespaces/${NS}/pods/${name}/log`;
    assert.equal(await get<string>(logPath), "listening on :8080\n");
    assert.equal(
      await client.request<string>({ path: logPath, query: { timestamps: true } }),
      "2026-11-25T10:00:00.000000000Z listening on :8080\n",
    );
    const stream = client.stream({ path: logPath, query: { follow: true } });
    let seen = "";
    const first = await stream.next();
    seen += first.value ?? "";
    await k8s.setPodLogs({
      namespace: NS,
      pod: name,
      lines: [{ time: new Date(t.getTime() + 1000), text: "GET / 200" }],
    });
    while (!seen.includes("GET / 200")) {
      const next = await stream.next();
      if (next.done) break;
      seen += next.value;
    }
    await stream.return(undefined);
    assert.equal(seen, "listening on :8080\nGET / 200\n");
  });

  it("garbage-collects a deleted Deployment's ReplicaSet and Pods", async () => {
    await client.request({
      method: "DELETE",
      path: `/apis/apps/v1/namespaces/${NS}/deployments/web`,
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
    });
    await eventually(
      "web's Pods gone",
      async () => ((await pods("app=web")).length === 0 ? true : undefined),
    );
    const rs = await get<{ items: Obj[] }>(`/apis/apps/v1/namespaces/${NS}/replicasets`);
    assert.deepEqual(rs.items.filter((r) => r.metadata.name.startsWith("web-")), []);
  });
});
