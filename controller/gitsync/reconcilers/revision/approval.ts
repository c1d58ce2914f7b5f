/**
 * Approval. While AwaitingApproval the Revision waits until the admission webhook has recorded, on the
 * Application, an approval of exactly this Revision's plan digest; then it moves to Applying. With
 * approvals off (ENABLE_WEBHOOKS=false) nothing records who approved, so annotations are ignored and the
 * Revision keeps waiting (Event ApprovalsDisabled, once). At rollout start the approval must still hold:
 * the plan is computed again, and a different digest (for a rollback: a different desired state) sends
 * the Revision back to AwaitingApproval (Event ApprovalStale).
 */
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { APPROVED_AT, APPROVED_BY, APPROVED_DIGEST, APPROVED_REVISION } from "../../api/mod.ts";
import { iso, type RevisionContext, writeStatus } from "./context.ts";
import { plan } from "./plan.ts";

const APPROVALS_DISABLED = "the manager runs with ENABLE_WEBHOOKS=false: approvals are ignored, so this " +
  "plan cannot be approved; turn the webhook on, or let the Application sync automatically";

/** The AwaitingApproval phase; see the module comment. */
export async function awaitApproval(c: RevisionContext): Promise<ReconcileResult> {
  const { rev, app, key, o } = c;
  if (o.approvalsOff) {
    if (!c.memory.approvalsOffTold.has(key)) {
      c.memory.approvalsOffTold.add(key);
      await o.events.warning(rev, "ApprovalsDisabled", APPROVALS_DISABLED);
    }
    return {};
  }
  const a = app.metadata?.annotations ?? {};
  // Not approved yet (or another plan was): the Application's change queues this Revision again.
  if (a[APPROVED_REVISION] !== rev.metadata!.name || a[APPROVED_DIGEST] !== rev.status?.plan?.digest) {
    return {};
  }
  await writeStatus(c, {
    phase: "Applying",
    approval: { approvedBy: a[APPROVED_BY]!, approvedAt: a[APPROVED_AT]!, planDigest: a[APPROVED_DIGEST]! },
  });
  return { requeueAfterMs: 10 };
}

/**
 * At rollout start: whether the plan is still the approved one (then the rollout starts: startedAt), or
 * not (back to AwaitingApproval). A rollback's approval binds to the desired state instead (the live
 * objects have moved on since, so its old plan cannot match).
 */
export async function approvalHolds(c: RevisionContext): Promise<boolean> {
  const { rev, now } = c;
  const approved = rev.status?.approval;
  const rollback = Boolean(approved?.desiredStateHash);
  const current = await plan(c);
  const stale = rollback
    ? current.desiredStateHash !== approved?.desiredStateHash
    : current.digest !== approved?.planDigest;
  if (stale) {
    await writeStatus(c, { phase: "AwaitingApproval", plan: current, approval: null });
    await c.o.events.warning(
      rev,
      "ApprovalStale",
      rollback
        ? "the desired state changed since this Revision was deployed; review its plan and approve it to roll back"
        : `the plan changed after it was approved (approved ${approved?.planDigest}, now ${current.digest}); approve again`,
    );
    return false;
  }
  // From here on the applied objects are the plan's, so the plan is not computed again.
  await writeStatus(c, { startedAt: iso(now()) });
  return true;
}
