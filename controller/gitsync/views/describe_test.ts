/**
 * `gitsync get` and `gitsync revision` as text, byte for byte: every line each can print, in the
 * layouts they had before they printed through internal/cli's describe writer (testdata/*.txt).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Application, Revision } from "../api/mod.ts";
import { describeApplication, describeRevision } from "./describe.ts";

const expected = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), "utf8");
const NOW = new Date("2026-12-01T12:00:00Z");
const COMMIT = "3f2a9c1d0b7e6a5f4e3d2c1b0a9f8e7d6c5b4a39";
const PLAN = {
  digest: `sha256:${"a".repeat(64)}`,
  desiredStateHash: "h",
  entries: [],
  truncated: false,
  summary: { create: 2, update: 1, unchanged: 7, prune: 1, pruneSkipped: 0 },
};
const CAUSE = {
  reason: "CrashLoopBackOff",
  message: "back-off restarting failed container",
  resource: { kind: "Pod", name: "web-7d9f-x2" },
};

const revision = (name: string, status: Record<string, unknown>) =>
  ({
    metadata: { name, namespace: "shop" },
    spec: { applicationRef: { name: "web" }, sourceRevision: COMMIT, serviceAccountName: "deployer" },
    status,
  }) as unknown as Revision;

const application = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
  ({
    metadata: { name: "web", namespace: "shop" },
    spec: { source: { repositoryRef: { name: "repo" }, path: "deploy/web" }, ...spec },
    status,
  }) as unknown as Application;

const awaiting = revision("web-3f2a9c1d0b", { phase: "AwaitingApproval", plan: PLAN });
const failed = revision("web-3f2a9c1d0b", {
  phase: "Failed",
  plan: PLAN,
  approval: { approvedBy: "bob", approvedAt: "2026-12-01T11:00:00Z", planDigest: PLAN.digest },
  startedAt: "2026-12-01T11:00:01Z",
  finishedAt: "2026-12-01T11:05:00Z",
  hooks: [
    { stage: "pre-sync", kind: "Job", name: "migrate", state: "Succeeded" },
    { stage: "post-sync", kind: "Job", name: "smoke", state: "Failed" },
  ],
  failure: { reason: "HealthFailure", message: "Deployment/shop/web is Degraded" },
  diagnosis: { firstRootCause: CAUSE },
});
const applying = revision("web-1b2c3d4e5f", {
  phase: "Applying",
  plan: PLAN,
  rollout: { waitingFor: "Deployment/shop/web: 1 of 3 updated", waitingSince: "2026-12-01T11:58:00Z" },
  conditions: [{ type: "RolloutComplete", status: "False", reason: "Progressing", message: "waiting" }],
});
const healthy = revision("web-0a0b0c0d0e", {
  phase: "Healthy",
  conditions: [{
    type: "RolloutComplete",
    status: "True",
    reason: "Applied",
    message: "every object is ready",
  }],
});

describe("gitsync get prints", () => {
  it("an Application waiting for approval, with its conditions", () => {
    const app = application({
      sourceRevision: COMMIT,
      desiredRevision: "web-3f2a9c1d0b",
      deployedRevision: "web-0a0b0c0d0e",
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "AwaitingApproval",
          message: "plan sha256:aaaa waits for approval",
          lastTransitionTime: "2026-12-01T11:55:00Z",
        },
        { type: "Stalled", status: "False", reason: "Progressing" },
      ],
    }, { serviceAccountName: "deployer", sync: { selfHeal: true, prune: false } });
    assert.equal(describeApplication(app, awaiting, healthy, NOW), expected("get_awaiting.txt"));
  });

  it("a failed rollout with its root cause, automatic and suspended, nothing deployed", () => {
    const app = application(
      { sourceRevision: COMMIT, desiredRevision: "web-3f2a9c1d0b" },
      { suspend: true, sync: { automatic: true }, source: { repositoryRef: { name: "repo" }, path: "" } },
    );
    const other = revision("web-3f2a9c1d0b", {
      ...failed.status,
      failure: { reason: "ApplyFailed", message: "admission webhook denied" },
    });
    assert.equal(describeApplication(app, other, undefined, NOW), expected("get_failed.txt"));
  });

  it("a rollout that waits, its desired Revision deployed, before any condition", () => {
    const app = application({ desiredRevision: "web-1b2c3d4e5f", deployedRevision: "gone" });
    assert.equal(describeApplication(app, applying, undefined, NOW), expected("get_waiting.txt"));
  });
});

describe("gitsync revision prints", () => {
  it("a Revision waiting for approval", () => {
    assert.equal(describeRevision(awaiting), expected("revision_awaiting.txt"));
  });
  it("a failed Revision: approval, times, hooks, failure and root cause", () => {
    assert.equal(describeRevision(failed), expected("revision_failed.txt"));
  });
  it("a Revision whose rollout waits, and one that completed", () => {
    assert.equal(describeRevision(applying), expected("revision_applying.txt"));
    assert.equal(describeRevision(healthy), expected("revision_healthy.txt"));
  });
});
