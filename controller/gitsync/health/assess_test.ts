import assert from "node:assert/strict";
import { test } from "node:test";
import { assessHealth, type HealthStatus } from "./assess.ts";

const cond = (type: string, status: string, reason?: string, message?: string) => ({
  type,
  status,
  reason,
  message,
});

const cases: [string, Record<string, unknown>, HealthStatus, RegExp?][] = [
  [
    "a rolled-out Deployment",
    {
      kind: "Deployment",
      metadata: { generation: 2 },
      spec: { replicas: 2 },
      status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    },
    "Healthy",
  ],
  [
    "a Deployment whose new spec is not observed",
    {
      kind: "Deployment",
      metadata: { generation: 3 },
      spec: { replicas: 2 },
      status: { observedGeneration: 2 },
    },
    "Progressing",
    /generation 3/,
  ],
  [
    "a Deployment mid-rollout",
    {
      kind: "Deployment",
      metadata: { generation: 2 },
      spec: { replicas: 3 },
      status: { observedGeneration: 2, replicas: 4, updatedReplicas: 3, availableReplicas: 2 },
    },
    "Progressing",
    /1 old replicas are pending termination/,
  ],
  [
    "a Deployment past its progress deadline",
    {
      kind: "Deployment",
      metadata: { generation: 1 },
      spec: { replicas: 1 },
      status: {
        observedGeneration: 1,
        conditions: [
          cond("Progressing", "False", "ProgressDeadlineExceeded", 'ReplicaSet "web-1" has timed out'),
        ],
      },
    },
    "Degraded",
    /progress deadline/,
  ],
  [
    "a Deployment no controller has seen",
    { kind: "Deployment", metadata: { generation: 1 }, spec: {} },
    "Progressing",
    /deployment controller/,
  ],
  [
    "a StatefulSet with pods at the old revision",
    {
      kind: "StatefulSet",
      metadata: { generation: 1 },
      spec: { replicas: 2 },
      status: {
        observedGeneration: 1,
        readyReplicas: 2,
        currentRevision: "a",
        updateRevision: "b",
        updatedReplicas: 1,
      },
    },
    "Progressing",
  ],
  [
    "a DaemonSet on every node",
    {
      kind: "DaemonSet",
      metadata: { generation: 1 },
      status: {
        observedGeneration: 1,
        desiredNumberScheduled: 2,
        updatedNumberScheduled: 2,
        numberAvailable: 2,
      },
    },
    "Healthy",
  ],
  [
    "a crash-looping Pod",
    {
      kind: "Pod",
      status: {
        phase: "Running",
        containerStatuses: [{
          name: "app",
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } },
        }],
      },
    },
    "Degraded",
    /container app: CrashLoopBackOff: back-off 40s/,
  ],
  [
    "an unschedulable Pod",
    {
      kind: "Pod",
      status: {
        phase: "Pending",
        conditions: [cond("PodScheduled", "False", "Unschedulable", "0/2 nodes are available")],
      },
    },
    "Progressing",
    /unschedulable: 0\/2 nodes/,
  ],
  [
    "a ready Pod",
    { kind: "Pod", status: { phase: "Running", conditions: [cond("Ready", "True")] } },
    "Healthy",
  ],
  [
    "a failed Job",
    { kind: "Job", status: { conditions: [cond("Failed", "True", "BackoffLimitExceeded")] } },
    "Degraded",
  ],
  ["a complete Job", { kind: "Job", status: { conditions: [cond("Complete", "True")] } }, "Healthy"],
  ["a running Job", { kind: "Job", status: { active: 1 } }, "Progressing"],
  ["a pending claim", { kind: "PersistentVolumeClaim", status: { phase: "Pending" } }, "Progressing"],
  [
    "a LoadBalancer without address",
    { kind: "Service", spec: { type: "LoadBalancer" }, status: {} },
    "Progressing",
  ],
  ["a ClusterIP Service", { kind: "Service", spec: { type: "ClusterIP" } }, "Healthy"],
  ["a ConfigMap", { kind: "ConfigMap", data: {} }, "Healthy"],
  [
    "an established CRD",
    { kind: "CustomResourceDefinition", status: { conditions: [cond("Established", "True")] } },
    "Healthy",
  ],
  [
    "a custom resource that is Ready",
    {
      kind: "Certificate",
      metadata: { generation: 1 },
      status: { observedGeneration: 1, conditions: [cond("Ready", "True")] },
    },
    "Healthy",
  ],
  [
    "a custom resource that is Stalled",
    { kind: "Certificate", status: { conditions: [cond("Stalled", "True", "InvalidSpec", "bad issuer")] } },
    "Degraded",
    /bad issuer/,
  ],
  [
    "a custom resource that is reconciling",
    { kind: "Kustomization", status: { conditions: [cond("Reconciling", "True", "Progressing")] } },
    "Progressing",
  ],
  [
    "a custom resource with no status at all",
    { kind: "Widget", spec: {} },
    "Unknown",
    /Widget reports no status to assess; add a HealthCheck rule/,
  ],
];

for (const [name, object, want, message] of cases) {
  test(`${name} is ${want}`, () => {
    const h = assessHealth(object);
    assert.equal(h.status, want, h.message);
    if (message) assert.match(h.message, message);
  });
}

test("a kind declared status-less (by a HealthCheck rule) is Healthy once it exists", () => {
  assert.equal(assessHealth({ kind: "Widget", spec: {} }, new Set(["Widget"])).status, "Healthy");
});
