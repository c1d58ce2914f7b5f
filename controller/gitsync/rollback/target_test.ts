import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rollbackTarget } from "./target.ts";
import type { Application, Revision } from "../api/mod.ts";

const rev = (
  name: string,
  phase: string,
  o: { good?: boolean; finishedAt?: string; startedAt?: string; app?: string } = {},
): Revision => ({
  metadata: { name, namespace: "shop" },
  spec: { applicationRef: { name: o.app ?? "web" }, sourceRevision: name, serviceAccountName: "deployer" },
  status: {
    phase,
    ...(o.startedAt ? { startedAt: o.startedAt } : {}),
    ...(o.finishedAt ? { finishedAt: o.finishedAt } : {}),
    conditions: o.good ? [{ type: "RolloutComplete", status: "True" }] : [],
  },
});
const app = (desired: string, deployed?: string): Application => ({
  metadata: { name: "web", namespace: "shop" },
  spec: { source: { repositoryRef: { name: "repo" } } },
  status: { desiredRevision: desired, ...(deployed ? { deployedRevision: deployed } : {}) },
});
const name = (t: ReturnType<typeof rollbackTarget>) =>
  "revision" in t ? t.revision.metadata!.name : t.refused;

const v100 = rev("v100", "Healthy", { good: true, startedAt: "t0", finishedAt: "2026-01-01T00:01:00Z" });
const v110 = rev("v110", "Healthy", { good: true, startedAt: "t1", finishedAt: "2026-01-01T00:02:00Z" });

describe("rollbackTarget", () => {
  it("with the desired Revision failed part-way, the deployed one is the target (1.2.0 → 1.1.0)", () => {
    const v120 = rev("v120", "Failed", { startedAt: "t2", finishedAt: "2026-01-01T00:03:00Z" });
    assert.equal(name(rollbackTarget(app("v120", "v110"), [v100, v110, v120])), "v110");
    // Still applying part-way counts too.
    const applying = rev("v120", "Applying", { startedAt: "t2" });
    assert.equal(name(rollbackTarget(app("v120", "v110"), [v100, v110, applying])), "v110");
  });

  it("otherwise the newest known-good other than the desired and the deployed one (the seed's rule)", () => {
    assert.equal(name(rollbackTarget(app("v110", "v110"), [v100, v110])), "v100");
    // A new Revision that has not started (awaiting approval, or failed in planning) left v110 live.
    const waiting = rev("v120", "AwaitingApproval");
    assert.equal(name(rollbackTarget(app("v120", "v110"), [v100, v110, waiting])), "v100");
    const unrendered = rev("v120", "Failed", { finishedAt: "2026-01-01T00:03:00Z" });
    assert.equal(name(rollbackTarget(app("v120", "v110"), [v100, v110, unrendered])), "v100");
    assert.equal(
      name(rollbackTarget(app("v100", "v100"), [v100])),
      "no known-good Revision other than the desired and the deployed one to roll back to",
    );
  });

  it("an explicit target must exist, belong to the Application and be known-good", () => {
    const v120 = rev("v120", "Failed", { startedAt: "t2" });
    const other = rev("api1", "Healthy", { good: true, app: "api" });
    const revisions = [v100, v110, v120];
    const a = app("v120", "v110");
    assert.equal(name(rollbackTarget(a, revisions, "v100")), "v100");
    assert.equal(
      name(rollbackTarget(a, revisions, "nope")),
      "Revision nope does not exist in namespace shop",
    );
    assert.equal(
      name(rollbackTarget(a, revisions, "api1", (n) => n === "api1" ? other : undefined)),
      "Revision api1 belongs to Application api, not web",
    );
    assert.equal(
      name(rollbackTarget(a, revisions, "v120")),
      "Revision v120 never rolled out Healthy (it is Failed): only a known-good Revision can be rolled back to",
    );
    assert.equal(
      name(rollbackTarget(app("v110", "v110"), revisions, "v110")),
      "Revision v110 is what Application web runs already",
    );
  });
});
