import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deployedConditions, failedConditions, readyFromRevision } from "./conditions.ts";
import type { Application, Condition } from "../api/mod.ts";

const now = new Date("2026-01-01T00:00:00Z");
const app = (deployed?: string, conditions: Condition[] = []): Application => ({
  metadata: { name: "web", namespace: "shop" },
  spec: { source: { repositoryRef: { name: "repo" } } },
  status: { ...(deployed ? { deployedRevision: deployed } : {}), conditions },
});
const byType = (list: Condition[], type: string) => list.find((c) => c.type === type);
const failure = { reason: "HealthFailure", message: "Deployment/shop/web is Degraded" };

describe("failedConditions", () => {
  it("a rollout that applied objects: Ready False with the reason and what is live; Drifted True", () => {
    const list = failedConditions(app("web-110"), "web-120", failure, true, now);
    assert.deepEqual(byType(list, "Ready"), {
      type: "Ready",
      status: "False",
      reason: "HealthFailure",
      message:
        "Revision web-120 failed: Deployment/shop/web is Degraded; its rollout stopped part-way: what it " +
        "applied is live beside the rest of Revision web-110 (gitsync rollback web returns to web-110)",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    assert.equal(byType(list, "Drifted")?.reason, "RolloutFailed");
  });

  it("a failure before anything was applied leaves the deployed Revision running and Drifted alone", () => {
    const list = failedConditions(
      app("web-110"),
      "web-120",
      { reason: "RenderFailure", message: "x" },
      false,
      now,
    );
    assert.match(byType(list, "Ready")!.message!, /; Revision web-110 is still what runs$/);
    assert.equal(byType(list, "Drifted"), undefined);
    const first = failedConditions(app(), "web-1", { reason: "Forbidden", message: "x" }, false, now);
    assert.match(byType(first, "Ready")!.message!, /; nothing is deployed yet$/);
  });
});

describe("deployedConditions", () => {
  it("Ready True; a Drifted that said otherwise goes back to InSync, and is not added where there was none", () => {
    const drifted = [{ type: "Drifted", status: "True", reason: "RolloutFailed" }];
    const list = deployedConditions(app("web-110", drifted), "web-110", {
      reason: "RolledBack",
      message: "m",
    }, now);
    assert.equal(byType(list, "Ready")?.reason, "RolledBack");
    assert.deepEqual([byType(list, "Drifted")?.status, byType(list, "Drifted")?.reason], ["False", "InSync"]);
    assert.equal(
      byType(deployedConditions(app(), "a", { reason: "R", message: "m" }, now), "Drifted"),
      undefined,
    );
  });
});

describe("readyFromRevision", () => {
  it("follows the desired Revision: deployed and Healthy, Failed, or on its way", () => {
    const healthy = { metadata: { name: "web-1" }, spec: {} as never, status: { phase: "Healthy" } };
    assert.equal(byType(readyFromRevision(app("web-1"), "web-1", healthy, now), "Ready")?.status, "True");
    const failed = { ...healthy, status: { phase: "Failed", failure } };
    assert.equal(byType(readyFromRevision(app(), "web-1", failed, now), "Ready")?.reason, "HealthFailure");
    assert.deepEqual(byType(readyFromRevision(app(), "web-2", undefined, now), "Ready"), {
      type: "Ready",
      status: "Unknown",
      reason: "Progressing",
      message: "Revision web-2 is not rolled out yet (gitsync get web says where it is)",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
  });
});
