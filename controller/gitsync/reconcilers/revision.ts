/**
 * The Revision reconciler (seed section 3): plan → approval → rollout → observe, reading as the
 * state table does; each phase is a module of revision/ over one RevisionContext.
 *
 *   not wanted (any more)          → Superseded, if it had not finished
 *   Failed                         → retry.ts: a retry request rolls it out again
 *   Healthy                        → drift.ts: compared with the cluster; self-heal
 *   Pending, Planning, Superseded  → plan.ts: plan; NoChanges, AwaitingApproval, or automatic rollout
 *   AwaitingApproval               → approval.ts: an approval of exactly this plan's digest → Applying
 *   Applying                       → approval.ts at its start (ApprovalStale), then rollout.ts, one step
 *                                    at a time, ending Healthy (RolloutComplete) or Failed (the reason)
 *
 * A render, decryption, validation or apply failure anywhere ends the Revision Failed with its reason;
 * the Application's Ready says which and what is live. Exits that record nothing: the Revision is gone,
 * its Application is not in the cache, it is suspended (the rollout's state is in status, so resuming
 * continues where it stopped), the cache is behind this reconciler's own write, or a phase waits for
 * what will queue it again (an approval, a retry request, the drift interval).
 */
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { ROLLBACK_REQUESTED_AT, UNFINISHED_PHASES } from "../api/mod.ts";
import { RenderFailure } from "../render/failure.ts";
import { RolloutFailure } from "../rollout/apply.ts";
import { ValidationFailure } from "../rollout/groups.ts";
import { DecryptionFailure } from "../sops/decrypt.ts";
import { supersededStatus } from "../status/revision_status.ts";
import { approvalHolds, awaitApproval } from "./revision/approval.ts";
import {
  desiredState,
  fail,
  type RevisionContext,
  RevisionMemory,
  type RevisionReconcilerOptions,
  writeStatus,
} from "./revision/context.ts";
import { observeDrift } from "./revision/drift.ts";
import { planRevision } from "./revision/plan.ts";
import { retry } from "./revision/retry.ts";
import { rollOut } from "./revision/rollout.ts";

export type { RevisionReconcilerOptions } from "./revision/context.ts";

export function revisionReconciler(o: RevisionReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  const memory = new RevisionMemory();

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const rev = o.getRevision(key);
    if (!rev) {
      memory.forget(key); // Deleted (history).
      o.driftSuspected?.delete(key);
      return {};
    }
    const ns = rev.metadata!.namespace!;
    const app = o.getApplication(`${ns}/${rev.spec.applicationRef.name}`);
    if (!app) return {};
    const phase = rev.status?.phase ?? "Pending";
    let sa: RevisionContext["sa"] | undefined;
    const c: RevisionContext = {
      o,
      memory,
      now,
      key,
      rev,
      app,
      phase,
      // The Application's service account, made when a phase first needs it.
      get sa() {
        return sa ??= o.client.impersonating({
          user: `system:serviceaccount:${ns}:${rev.spec.serviceAccountName}`,
        });
      },
    };
    if (app.status?.desiredRevision !== rev.metadata!.name) return await notWanted(c);
    if (app.spec.suspend) return {}; // Nothing moves: no plan, rollout step, drift check or self-heal.
    if (memory.behind(key, rev, phase)) return { requeueAfterMs: 200 };
    if (phase === "Failed") return await retry(c);
    try {
      if (phase === "Healthy") return await observeDrift(c);
      if (phase === "Pending" || phase === "Planning" || phase === "Superseded") return await planRevision(c);
      if (phase === "AwaitingApproval") return await awaitApproval(c);
      // Applying: at its start the approval must still hold; then one rollout step.
      if (!rev.status?.startedAt && !await approvalHolds(c)) return {};
      return await rollOut(c, await desiredState(c));
    } catch (err) {
      return await failed(c, err);
    } finally {
      sa?.close();
    }
  };
}

/**
 * The Application wants another Revision: one that moved on regardless ends Superseded (a Pending one may
 * be about to be wanted: the Application reconciler supersedes those).
 */
async function notWanted(c: RevisionContext): Promise<ReconcileResult> {
  const { app, phase } = c;
  // A rollback being set up makes this Revision wanted in a moment (the cache has its status already).
  const rollback = app.metadata?.annotations?.[ROLLBACK_REQUESTED_AT];
  if (rollback && rollback !== app.status?.rollback?.requestedAt) return {};
  if (phase === "Pending" || !UNFINISHED_PHASES.has(phase)) return {};
  await writeStatus(c, supersededStatus(c.rev, app.status!.desiredRevision!, c.now()));
  return {};
}

/**
 * A render, plan or apply of the rollout's objects failed: Failed with the failure's reason (a rollout
 * under way may have changed the cluster already). Anything else is retried with backoff by the queue.
 */
async function failed(c: RevisionContext, err: unknown): Promise<ReconcileResult> {
  const changedCluster = c.phase === "Applying" && Boolean(c.rev.status?.startedAt);
  if (err instanceof RenderFailure || err instanceof ValidationFailure || err instanceof DecryptionFailure) {
    return await fail(c, { reason: err.reason, message: err.message }, { changedCluster });
  }
  if (err instanceof RolloutFailure) return await fail(c, err, { changedCluster });
  throw err;
}
