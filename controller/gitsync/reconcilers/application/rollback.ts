/**
 * Rollback (seed section 3): a new value of the annotation sync.gitsync.io/rollback-requested-at points
 * the Application at its rollback target (rollback/target.ts: the newest known-good Revision other than
 * the desired one and, unless the desired one's rollout stopped part-way, the deployed one; or the
 * Revision sync.gitsync.io/rollback-to-revision names); that Revision rolls out again through the normal
 * reconcile, the request counting as its approval while its desired state is unchanged. No target: Event
 * RollbackFailed and status.rollback.message say why, nothing else changes.
 */
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { ROLLBACK_TO_REVISION } from "../../api/mod.ts";
import { patchStatus } from "../../client/mod.ts";
import { rollbackTarget } from "../../rollback/target.ts";
import { rollingBackConditions, setCondition } from "../../status/conditions.ts";
import { type ApplicationContext, iso, revisionNamed, supersede, writeStatus } from "./context.ts";

const APPROVALS_OFF_ROLLBACK = "approvals are off (the manager runs with ENABLE_WEBHOOKS=false): an " +
  "Application that does not sync automatically is not rolled back";

/** Points the Application at the rollback target and starts its rollout, approved by the request. */
export async function rollBack(
  c: ApplicationContext,
  requestedAt: string,
  requestedBy: string | undefined,
  commit: string,
): Promise<ReconcileResult> {
  const { app, ns, o, now } = c;
  // With approvals off nothing records who asked, and the request would count as an approval.
  const found = o.approvalsOff && app.spec.sync?.automatic !== true
    ? { refused: APPROVALS_OFF_ROLLBACK }
    : rollbackTarget(
      app,
      o.listRevisions(ns, app.metadata!.name!),
      app.metadata?.annotations?.[ROLLBACK_TO_REVISION],
      (name) => revisionNamed(c, name),
    );
  const request = { requestedAt, ...(requestedBy ? { requestedBy } : {}), sourceRevision: commit };
  if ("refused" in found) {
    const message = found.refused;
    await writeStatus(c, { rollback: { ...request, message } });
    await o.events.warning(app, "RollbackFailed", message);
    return {};
  }
  const target = found.revision;
  const rev = target.metadata!.name!;
  // A fresh rollout of the target: hooks run again; the request is its approval while the desired
  // state is what it was (checked at rollout start against plan.desiredStateHash).
  await patchStatus(o.client, "revisions", target, {
    phase: "Applying",
    rollout: { attempt: (target.status?.rollout?.attempt ?? 1) + 1, group: 0 },
    hooks: [],
    approval: {
      approvedBy: `rollback by ${requestedBy ?? "unknown"}`,
      approvedAt: iso(now()),
      planDigest: target.status?.plan?.digest ?? "",
      desiredStateHash: target.status?.plan?.desiredStateHash ?? "",
    },
    startedAt: null,
    finishedAt: null,
    failure: null,
    diagnosis: null,
    conditions: setCondition(target.status?.conditions, {
      type: "RolloutComplete",
      status: "False",
      reason: "RollingBack",
      message: `rolling back to this Revision, requested by ${requestedBy ?? "unknown"}`,
    }, now()),
  }, { replacing: true });
  await writeStatus(c, {
    desiredRevision: rev,
    rollback: { ...request, revision: rev },
    conditions: rollingBackConditions(app, rev, now()),
  });
  await supersede(c, rev);
  await o.events.normal(app, "RollbackStarted", `rolling back to Revision ${rev}`);
  return {};
}
