/**
 * Drift (a Healthy, deployed Revision, on --drift-resync-interval or at once when the drift watch saw a
 * managed object change): the deployed objects (hooks aside) dry-run applied as the service account;
 * what would be created or changed has drifted. Reported on the Application (condition Drifted, Event
 * DriftDetected once per transition). With spec.sync.selfHeal the Revision rolls out again: at once when
 * the Application syncs automatically, else after a fresh approval of the new plan.
 */
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { buildPlan } from "../../plan/plan.ts";
import { applyObjects } from "../../rollout/apply.ts";
import { liveLookup } from "../../rollout/inventory.ts";
import { setCondition } from "../../status/conditions.ts";
import {
  desiredState,
  inventory,
  iso,
  type RevisionContext,
  writeAppStatus,
  writeStatus,
} from "./context.ts";
import { plan } from "./plan.ts";

/** The Healthy phase: a drift check when due. */
export async function observeDrift(c: RevisionContext): Promise<ReconcileResult> {
  const { rev, app, key, o, now } = c;
  // Drift checks off, or this Revision is not what runs: Healthy stays as it is.
  if (!o.driftIntervalMs || app.status?.deployedRevision !== rev.metadata!.name) return {};
  if (!driftCheckDue(c)) return {}; // Its requeue is already pending.
  o.driftSuspected?.delete(key);
  const checkedAt = now().getTime();
  await checkDrift(c);
  c.memory.inSync(key, app, checkedAt);
  return { requeueAfterMs: o.driftIntervalMs };
}

/** Whether a Healthy Revision's drift check is due now (see RevisionMemory.lastInSync). */
function driftCheckDue(c: RevisionContext): boolean {
  const { key, app, o } = c;
  const last = c.memory.lastInSync.get(key);
  if (!last) return true; // After a restart or a self-heal.
  if (o.driftSuspected?.has(key) || last.generation !== app.metadata?.generation) return true;
  // The requeue after a check comes back after the interval; a little early counts.
  return c.now().getTime() - last.at >= o.driftIntervalMs! - 1_000;
}

/** Compares, reports (condition Drifted) and, with selfHeal, starts the rollout that restores. */
async function checkDrift(c: RevisionContext): Promise<void> {
  const { rev, app, sa, o, now } = c;
  const { groups } = await desiredState(c);
  const objects = groups.flatMap((g) => (g.stage === "wave" ? g.objects : []));
  const changes = await applyObjects(sa, objects, {
    conflictPolicy: "adopt", // a dry run: shows what taking the fields back would change
    defaultNamespace: app.metadata!.namespace!,
    dryRun: true,
    live: liveLookup(await inventory(c, objects)(), app.metadata!.namespace!),
  });
  const current = buildPlan({ changes, prune: [], pruneSkipped: [], redact: o.redact });
  const drifted = current.entries.filter((e) => e.action === "create" || e.action === "update");
  const was = app.status?.conditions?.find((x) => x.type === "Drifted")?.status;
  const names = drifted.slice(0, 5).map((e) => `${e.kind}/${e.name}`).join(", ") +
    (drifted.length > 5 ? ` and ${drifted.length - 5} more` : "");
  const condition = drifted.length
    ? {
      type: "Drifted",
      status: "True",
      reason: "DriftDetected",
      message: `${drifted.length} object(s) differ from Revision ${rev.metadata!.name}: ${names}`,
    }
    : {
      type: "Drifted",
      status: "False",
      reason: "InSync",
      message: "the cluster matches the deployed Revision",
    };
  if (condition.status !== was) {
    await writeAppStatus(c, (a) => ({ conditions: setCondition(a.status?.conditions, condition, now()) }));
    if (drifted.length) await o.events.warning(app, "DriftDetected", condition.message);
  }
  if (drifted.length && app.spec.sync?.selfHeal) await selfHeal(c, names);
}

/** The rollout that restores what drifted: at once with automatic sync, else after a fresh approval. */
async function selfHeal(c: RevisionContext, names: string): Promise<void> {
  const { rev, app, o, now } = c;
  const attempt = (rev.status?.rollout?.attempt ?? 1) + 1;
  if (app.spec.sync?.automatic === true) {
    await writeStatus(c, {
      phase: "Applying",
      rollout: { attempt, group: 0, selfHeal: true },
      startedAt: iso(now()),
      finishedAt: null,
    });
    await o.events.normal(rev, "SelfHeal", `restoring ${names}`);
    return;
  }
  // A later rollout of the same Revision needs a fresh approval (seed section 3).
  const full = await plan(c);
  await writeStatus(c, {
    phase: "AwaitingApproval",
    plan: full,
    approval: null,
    rollout: { attempt, group: 0, selfHeal: true },
    startedAt: null,
    finishedAt: null,
  });
  await o.events.normal(
    rev,
    "AwaitingApproval",
    `self-heal of ${names} waits for approval of plan ${full.digest}`,
  );
}
