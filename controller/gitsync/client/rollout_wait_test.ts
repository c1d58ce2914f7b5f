/** How `--wait` decides a rollout has ended: each known outcome at once, never only at the timeout. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { verdict } from "./rollout_wait.ts";
import type { Application, Revision } from "../api/mod.ts";

const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;
const rev = (status: Revision["status"], name = "web-1"): Revision => ({
  metadata: { name, namespace: "shop" },
  spec: { applicationRef: { name: "web" }, sourceRevision: "c1", serviceAccountName: "deployer" },
  status,
});
const app = (desired = "web-1", suspend = false): Application => ({
  metadata: { name: "web", namespace: "shop" },
  spec: { source: { repositoryRef: { name: "repo" } }, suspend },
  status: { desiredRevision: desired },
});
const plan = (digest: string) => ({
  digest,
  desiredStateHash: "h",
  entries: [],
  truncated: false,
  summary: { create: 1, update: 0, unchanged: 0, prune: 0, pruneSkipped: 0 },
});

describe("verdict", () => {
  it("Healthy ends well; a plan that changed nothing says so", () => {
    assert.deepEqual(verdict(rev({ phase: "Healthy" }), app()), {
      end: "ok",
      message: "Revision web-1 is Healthy",
    });
    const unchanged = rev({
      phase: "Healthy",
      conditions: [{ type: "RolloutComplete", status: "True", reason: "NoChanges" }],
    });
    assert.match((verdict(unchanged, app()) as { message: string }).message, /changed nothing/);
  });

  it("Failed ends with the reason and the root cause", () => {
    const failed = rev({
      phase: "Failed",
      failure: { reason: "HookFailed", message: "pre-sync hook Job/shop/migrate failed" },
      diagnosis: {
        firstRootCause: {
          reason: "CrashLoopBackOff",
          message: "back-off 40s",
          resource: { kind: "Pod", name: "m-1" },
        },
        causes: [],
        diagnosedAt: "2026-01-01T00:00:00Z",
      },
    });
    assert.deepEqual(verdict(failed, app()), {
      end: "failed",
      message: "Revision web-1 failed: HookFailed: pre-sync hook Job/shop/migrate failed\n" +
        "root cause: CrashLoopBackOff: Pod/m-1: back-off 40s",
    });
  });

  it("ApprovalStale ends at once, naming the new digest", () => {
    const stale = rev({ phase: "AwaitingApproval", plan: plan(D2) });
    const v = verdict(stale, app(), { approvedDigest: D1 });
    assert.equal("end" in v && v.end, "failed");
    assert.match(
      (v as { message: string }).message,
      new RegExp(`^ApprovalStale: .*approved ${D1}.* now ${D2}`),
    );
    // The approval not taken up yet (same digest): still waiting.
    assert.deepEqual(
      verdict(rev({ phase: "AwaitingApproval", plan: plan(D1) }), app(), { approvedDigest: D1 }),
      {
        waiting: "AwaitingApproval",
      },
    );
    // A rollback has no digest of its own: going back to AwaitingApproval is its approval going stale.
    assert.equal((verdict(stale, app()) as { end: string }).end, "failed");
    // sync --wait: a plan ready for review is where it ends.
    assert.equal((verdict(stale, app(), { approvalIsAnEnd: true }) as { end: string }).end, "ok");
  });

  it("a Revision the Application no longer wants, or a suspended Application, ends at once", () => {
    const applying = rev({ phase: "Applying" });
    assert.match(
      (verdict(applying, app("web-2")) as { message: string }).message,
      /^Revision web-1 is superseded: Application web wants Revision web-2 now/,
    );
    assert.match(
      (verdict(rev({ phase: "Superseded" }), app()) as { message: string }).message,
      /superseded/,
    );
    assert.match((verdict(applying, app("web-1", true)) as { message: string }).message, /is suspended/);
  });

  it("while applying, the line says what the rollout waits for", () => {
    const waiting = rev({
      phase: "Applying",
      rollout: { attempt: 1, group: 0, waitingFor: "Service/shop/lb: Progressing (no address)" },
    });
    assert.deepEqual(verdict(waiting, app()), {
      waiting: "Applying: waiting for Service/shop/lb: Progressing (no address)",
    });
  });
});
