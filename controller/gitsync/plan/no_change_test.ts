import assert from "node:assert/strict";
import { it } from "node:test";
import type { AppliedObject } from "../rollout/apply.ts";
import { changesNothing } from "./no_change.ts";
import type { Plan } from "../api/mod.ts";

const plan = (summary: Partial<Plan["summary"]>): Plan => ({
  digest: "sha256:x",
  desiredStateHash: "sha256:y",
  entries: [],
  truncated: false,
  summary: { create: 0, update: 0, unchanged: 2, prune: 0, pruneSkipped: 0, ...summary },
});
const cm: AppliedObject = {
  desired: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
  after: { metadata: { name: "a" } },
};
const deployment = (available: number): AppliedObject => ({
  desired: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } },
  after: {
    metadata: { name: "web", generation: 1 },
    spec: { replicas: 1 },
    status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: available },
  },
});

it("a plan of unchanged objects over a Healthy live state changes nothing", () => {
  assert.equal(changesNothing(plan({}), [cm, deployment(1)]), true);
});

it("any create, update or prune is a change; an unhealthy live state is not left as it is", () => {
  assert.equal(changesNothing(plan({ create: 1 }), [cm]), false);
  assert.equal(changesNothing(plan({ update: 1 }), [cm]), false);
  assert.equal(changesNothing(plan({ prune: 1 }), [cm]), false);
  assert.equal(changesNothing(plan({}), [cm, deployment(0)]), false);
});
