/**
 * Rollout: one step of the rollout groups (rollout/rollout.ts), resumable from status, then the status
 * it leads to: still progressing (what it waits for, a diagnosis of what is unhealthy), Failed with the
 * reason (HealthFailure names the root cause; a failed hook Job says why its Pods failed), or Healthy
 * (RolloutComplete True; the Application's Ready True with RolloutComplete or RolledBack).
 */
import type { KubeObject } from "../../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { DEFAULT_HEALTH_TIMEOUT_MS, parseDuration } from "../../api/mod.ts";
import { freshDiagnosis } from "../../diagnosis/fresh.ts";
import { withRootCause } from "../../rollout/health_failure.ts";
import { managedKinds } from "../../rollout/inventory.ts";
import { type RolloutState, rolloutStep, type StepResult } from "../../rollout/rollout.ts";
import { deployedConditions } from "../../status/conditions.ts";
import { completedStatus, type StatusPatch, stored, waitedObject } from "../../status/revision_status.ts";
import {
  type Desired,
  fail,
  inventory,
  type RevisionContext,
  tell,
  writeAppStatus,
  writeStatus,
} from "./context.ts";

/** A diagnosis of `unhealthy` when due (diagnosis/fresh.ts); undefined when it found nothing new. */
const diagnosed = (c: RevisionContext, unhealthy: KubeObject[], force = false) =>
  freshDiagnosis(c.rev, unhealthy, { sa: c.sa, events: c.o.events, redact: c.o.redact, now: c.now(), force });

/**
 * One step of the groups, then the status it leads to. `first`, when given, goes into that status write
 * (automatic sync's plan and approval: one write instead of two).
 */
export async function rollOut(
  c: RevisionContext,
  desired: Desired,
  first?: StatusPatch,
): Promise<ReconcileResult> {
  const { rev, app, sa, now } = c;
  const { objects, groups, listed } = desired;
  const state: RolloutState = {
    rollout: first?.rollout?.attempt ?? rev.status?.rollout?.attempt ?? 1,
    group: first?.rollout?.group ?? rev.status?.rollout?.group ?? 0,
    hooks: first?.hooks ?? rev.status?.hooks ?? [],
    ...(!first && rev.status?.rollout?.waitingSince ? { waitingSince: rev.status.rollout.waitingSince } : {}),
  };
  const selfHeal = rev.status?.rollout?.selfHeal === true;
  const unlisted = listed?.unlisted ?? new Set<string>();
  const r = await rolloutStep({
    client: sa,
    rolloutOf: rev.metadata!.uid ?? rev.metadata!.name!,
    groups,
    state,
    // A self-heal takes back the fields others changed: they were approved as ours.
    conflictPolicy: selfHeal ? "adopt" : app.spec.conflictPolicy ?? "fail",
    namespace: rev.metadata!.namespace!,
    // Only this reconcile's own applies happened since the plan listed them: nothing to list again.
    inventory: listed ? () => Promise.resolve(listed.managed) : inventory(c, objects, unlisted),
    prune: app.spec.sync?.prune !== false,
    desired: objects,
    healthTimeoutMs: parseDuration(app.spec.healthTimeout ?? "") ?? DEFAULT_HEALTH_TIMEOUT_MS,
    now,
  });
  if (r.outcome === "progressing") return await progressing(c, r, selfHeal, first);
  if (r.outcome === "failed") return await failed(c, r, desired, selfHeal, first);
  return await completed(c, r, desired, unlisted, selfHeal, first);
}

/** Still under way: where it is and what it waits for (Event Waiting when that changes). */
async function progressing(
  c: RevisionContext,
  r: Extract<StepResult, { outcome: "progressing" }>,
  selfHeal: boolean,
  first: StatusPatch | undefined,
): Promise<ReconcileResult> {
  const { rev } = c;
  const diagnosis = r.unhealthy?.length ? await diagnosed(c, r.unhealthy) : undefined;
  await writeStatus(c, {
    ...first,
    rollout: stored(r.state, selfHeal, r.waitingFor),
    hooks: r.state.hooks,
    ...(diagnosis ? { diagnosis } : {}),
  });
  if (waitedObject(r.waitingFor) !== waitedObject(rev.status?.rollout?.waitingFor)) {
    await c.o.events.normal(rev, "Waiting", `group ${r.state.group}: waiting for ${r.waitingFor}`);
  }
  return { requeueAfterMs: 1_000 };
}

/**
 * Failed. Say why: for a wave, the diagnosis of its unhealthy objects, whose first root cause goes into
 * the message; for a failed hook Job, why its Pods failed.
 */
async function failed(
  c: RevisionContext,
  r: Extract<StepResult, { outcome: "failed" }>,
  { groups }: Desired,
  selfHeal: boolean,
  first: StatusPatch | undefined,
): Promise<ReconcileResult> {
  const { rev, sa } = c;
  const res = r.failure.resource;
  const live = r.unhealthy ?? (res.kind === "Job" && res.name
    ? await sa.request<KubeObject>({
      path: `/apis/batch/v1/namespaces/${res.namespace ?? rev.metadata!.namespace!}/jobs/${res.name}`,
    }).then((j) => [{ ...j, kind: "Job", apiVersion: "batch/v1" }], () => [])
    : []);
  const diagnosis = live.length ? await diagnosed(c, live, true) : undefined;
  const message = r.failure.reason === "HealthFailure"
    ? withRootCause(r.failure.message, diagnosis ?? rev.status?.diagnosis)
    : r.failure.message;
  return await fail(c, { ...r.failure, message }, {
    status: {
      ...first,
      rollout: stored(r.state, selfHeal),
      hooks: r.state.hooks,
      ...(diagnosis ? { diagnosis } : {}),
    },
    // Pre-sync hooks change nothing the deployed Revision runs; a wave or prune does.
    changedCluster: groups.slice(0, r.state.group + 1).some((g) => g.stage === "wave" || g.stage === "prune"),
  });
}

/** Healthy: the Revision is deployed (RolloutComplete, or RolledBack for a rollback's target). */
async function completed(
  c: RevisionContext,
  r: Extract<StepResult, { outcome: "complete" }>,
  { objects }: Desired,
  unlisted: Set<string>,
  selfHeal: boolean,
  first: StatusPatch | undefined,
): Promise<ReconcileResult> {
  const { rev, app, now, o } = c;
  const name = rev.metadata!.name!;
  await writeStatus(c, {
    ...first,
    ...completedStatus(rev, "RolloutComplete", "every group is Healthy", now()),
    diagnosis: null,
    rollout: stored(r.state, selfHeal),
    hooks: r.state.hooks,
  });
  c.memory.ended.set(c.key, r.state.rollout);
  if (r.pruneSkipped) await o.events.warning(rev, "PruneSkipped", r.pruneSkipped);
  if (unlisted.size) {
    await o.events.warning(
      rev,
      "PruneInventoryIncomplete",
      `${rev.spec.serviceAccountName} may not list ${[...unlisted].sort().join(", ")}: left out of pruning`,
    );
  }
  await o.events.normal(rev, "RolloutComplete", "every group is Healthy");
  const rolledBack = app.status?.rollback?.revision === name;
  if (rolledBack) await o.events.normal(app, "RolledBack", `rolled back to Revision ${name}`);
  tell(
    c,
    rolledBack ? "RolledBack" : "Healthy",
    rolledBack ? `rolled back to Revision ${name}` : "every group is Healthy",
  );
  await writeAppStatus(c, (a) => ({
    deployedRevision: name,
    managedKinds: managedKinds(objects),
    conditions: deployedConditions(a, name, {
      reason: rolledBack ? "RolledBack" : "RolloutComplete",
      message: `Revision ${name} is deployed and Healthy`,
    }, now()),
  }));
  // After a self-heal, check at once that the drift is gone (the Drifted condition clears then);
  // otherwise what was just applied is in sync until the interval or a change says otherwise.
  if (selfHeal) c.memory.lastInSync.delete(c.key);
  else c.memory.inSync(c.key, app, now().getTime());
  if (!o.driftIntervalMs) return {};
  return { requeueAfterMs: rev.status?.rollout?.selfHeal ? 1_000 : o.driftIntervalMs };
}
