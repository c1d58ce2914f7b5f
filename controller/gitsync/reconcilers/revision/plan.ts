/**
 * Plan (Pending, Planning, or Superseded and wanted again): render the commit, dry-run every object as
 * the service account and store the redacted plan and its digest. Then one of three: a plan that changes
 * nothing over a Healthy live state is deployed as it is (NoChanges); without automatic sync the Revision
 * waits in AwaitingApproval; with it, the plan is approved at once and rolled out in the same reconcile.
 */
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import type { KubeObject } from "../../../../internal/k8s/mod.ts";
import type { Plan } from "../../api/mod.ts";
import { changesNothing } from "../../plan/no_change.ts";
import { buildPlan } from "../../plan/plan.ts";
import { applyObjects } from "../../rollout/apply.ts";
import { liveLookup, managedKinds } from "../../rollout/inventory.ts";
import { planPrune } from "../../rollout/prune.ts";
import { deployedConditions } from "../../status/conditions.ts";
import { completedStatus, type StatusPatch } from "../../status/revision_status.ts";
import { inSpan, spanAttributes } from "../../tracing.ts";
import {
  type Desired,
  desiredState,
  inventory,
  iso,
  type RevisionContext,
  tell,
  writeAppStatus,
  writeStatus,
} from "./context.ts";
import { rollOut } from "./rollout.ts";

/** The plan and the desired state it was made from (automatic sync rolls that out at once). */
export function planned(c: RevisionContext): Promise<{ plan: Plan; desired: Desired; unchanged: boolean }> {
  const { rev, app, sa } = c;
  return inSpan(
    "plan",
    { "gitsync.revision": `${rev.metadata!.namespace}/${rev.metadata!.name}` },
    async () => {
      const { objects, groups } = await desiredState(c);
      const unlisted = new Set<string>();
      const managed = await inventory(c, objects, unlisted)();
      const options = {
        conflictPolicy: app.spec.conflictPolicy ?? "fail",
        defaultNamespace: app.metadata!.namespace!,
        dryRun: true,
        live: liveLookup(managed, app.metadata!.namespace!),
      } as const;
      const of = (stages: string[]) =>
        groups.flatMap((g) => (stages.includes(g.stage) && "objects" in g ? g.objects : []));
      const hooks = of(["pre-sync", "post-sync"]);
      const changes = [
        ...await applyObjects(sa, of(["wave"]), options),
        // Hooks are created afresh each rollout: planned as creates, whatever ran before.
        ...await applyObjects(sa, hooks, { ...options, recreate: true }),
      ];
      const pruned = app.spec.sync?.prune === false
        ? { delete: [], skipped: [] }
        : planPrune(managed, changes.map((x) => x.desired));
      const built = buildPlan({
        changes,
        prune: pruned.delete,
        pruneSkipped: pruned.skipped,
        redact: c.o.redact,
      });
      spanAttributes({ "gitsync.plan.digest": built.digest, "gitsync.plan.entries": built.entries.length });
      return {
        plan: built,
        desired: { objects, groups, listed: { managed, unlisted } },
        unchanged: changesNothing(built, changes),
      };
    },
  );
}

/** The plan alone (a rollout start's check, a self-heal waiting for approval). */
export const plan = (c: RevisionContext): Promise<Plan> => planned(c).then((p) => p.plan);

/** The Plan phase; see the module comment. */
export async function planRevision(c: RevisionContext): Promise<ReconcileResult> {
  const { rev, app, phase, now } = c;
  const { plan: p, desired, unchanged } = await planned(c);
  const fresh = {
    plan: p,
    rollout: { attempt: 1, group: 0, selfHeal: null },
    hooks: [],
    ...(phase === "Superseded"
      ? { approval: null, startedAt: null, finishedAt: null, failure: null, diagnosis: null }
      : {}),
  };
  // Nothing to change and what runs is Healthy: deployed as it is, no approval, no rollout.
  if (unchanged && app.status?.deployedRevision) return await deployedUnchanged(c, desired.objects, fresh);
  if (app.spec.sync?.automatic !== true) {
    await writeStatus(c, { phase: "AwaitingApproval", ...fresh });
    await c.o.events.normal(rev, "AwaitingApproval", `plan ${p.digest} waits for approval`);
    tell(c, "AwaitingApproval", `plan ${p.digest} waits for approval`, p);
    return { requeueAfterMs: 0 };
  }
  // Automatic sync approves the plan it just made and rolls out what was planned at once: no second
  // render or plan, and the plan goes into the same status write as the rollout's first step.
  return await rollOut(c, desired, {
    phase: "Applying",
    ...fresh,
    approval: { approvedBy: "automatic", approvedAt: iso(now()), planDigest: p.digest },
    startedAt: iso(now()),
  });
}

/**
 * A plan that changes nothing over a Healthy live state (plan/no_change.ts): the Revision is deployed
 * as it is, without approval or rollout; history and the Application say so (reason NoChanges).
 */
async function deployedUnchanged(
  c: RevisionContext,
  objects: KubeObject[],
  fresh: StatusPatch,
): Promise<ReconcileResult> {
  const { rev, app, now } = c;
  const name = rev.metadata!.name!;
  const message = `plan ${fresh.plan!.digest} changes nothing live: deployed without approval or rollout`;
  await writeStatus(c, { ...fresh, ...completedStatus(rev, "NoChanges", message, now()) });
  c.memory.ended.set(c.key, 1);
  await c.o.events.normal(rev, "NoChanges", message);
  await writeAppStatus(c, (a) => ({
    deployedRevision: name,
    managedKinds: managedKinds(objects),
    conditions: deployedConditions(a, name, {
      reason: "NoChanges",
      message: `Revision ${name} is deployed and Healthy (its plan changed nothing)`,
    }, now()),
  }));
  c.memory.inSync(c.key, app, now().getTime());
  return c.o.driftIntervalMs ? { requeueAfterMs: c.o.driftIntervalMs } : {};
}
