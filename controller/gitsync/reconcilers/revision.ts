/**
 * The Revision reconciler (seed section 3): plan → approval → rollout → observe, reading as the
 * state table does. Planning renders the commit, checks the hooks and waves, dry-runs every object
 * as the Application's service account and stores the redacted plan and its digest. Without
 * automatic sync the Revision then waits in AwaitingApproval until the admission webhook has recorded
 * an approval of exactly that digest. At rollout start the plan is computed again: if its digest no
 * longer matches the approved one the Revision goes back to AwaitingApproval (Event ApprovalStale).
 * Applying runs the rollout steps, resumable from status; the end is Healthy (RolloutComplete True)
 * or Failed with the reason (HealthFailure when a wave's objects turn Degraded or outlast the health
 * timeout), the Application's Ready saying which and what is live. A plan that changes nothing over a
 * Healthy live state is deployed at once, without approval or rollout (reason NoChanges). A Revision the
 * Application stops wanting before it finished ends Superseded.
 */
import {
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  patchStatusLocked,
  replacingMergePatch,
} from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { freshDiagnosis } from "../diagnosis/fresh.ts";
import type { Notification, NotificationEvent } from "../notify/notifier.ts";
import { buildPlan } from "../plan/plan.ts";
import { inSpan, spanAttributes } from "../tracing.ts";
import type { ChartSource } from "../source/helm/chart_source.ts";
import type { Renderers } from "../render/render.ts";
import { RenderFailure } from "../render/failure.ts";
import { desiredState as renderDesired } from "../rollout/desired_state.ts";
import { listManaged, liveLookup, managedKinds } from "../rollout/inventory.ts";
import { DecryptionFailure } from "../sops/decrypt.ts";
import { applyObjects, RolloutFailure } from "../rollout/apply.ts";
import { type Group, ValidationFailure } from "../rollout/groups.ts";
import { planPrune } from "../rollout/prune.ts";
import { withRootCause } from "../rollout/health_failure.ts";
import { type RolloutState, rolloutStep } from "../rollout/rollout.ts";
import { changesNothing } from "../plan/no_change.ts";
import { deployedConditions, failedConditions, setCondition } from "../status/conditions.ts";
import {
  completedStatus,
  failedStatus,
  type StatusPatch,
  stored,
  supersededStatus,
  waitedObject,
} from "../status/revision_status.ts";
import {
  API_VERSION,
  type Application,
  APPROVED_AT,
  APPROVED_BY,
  APPROVED_DIGEST,
  APPROVED_REVISION,
  DEFAULT_HEALTH_TIMEOUT_MS,
  parseDuration,
  type Plan,
  RETRY_REQUESTED_AT,
  type Revision,
  ROLLBACK_REQUESTED_AT,
  UNFINISHED_PHASES,
} from "../api/mod.ts";

export interface RevisionReconcilerOptions {
  /** The manager's own client; `impersonating` gives the service account's. */
  client: KubeClient;
  getRevision: (key: string) => Revision | undefined;
  getApplication: (key: string) => Application | undefined;
  /** The files of a Repository's commit (from the source cache). */
  source: (namespace: string, repository: string, commit: string) => Promise<ReadonlyMap<string, Uint8Array>>;
  renderers: Renderers;
  /** Charts from chart repositories (render.helm.chart), cached per namespace and credentials. */
  charts?: ChartSource;
  /** The cluster's Kubernetes version, for Helm's .Capabilities.KubeVersion (as `helm install` sees it). */
  kubeVersion?: () => Promise<string | undefined>;
  events: EventRecorder;
  redact: (text: string) => string;
  /** Queues a notification for the Application's sinks (controller/gitsync/notify). */
  notify?: (app: Application, n: Notification) => void;
  /** --drift-resync-interval: how often a deployed Revision is compared with the cluster; 0 turns it off. */
  driftIntervalMs?: number;
  /**
   * Keys of deployed Revisions whose managed objects changed (the drift watch): checked at their next
   * reconcile whatever the interval; the reconciler takes a key out once checked.
   */
  driftSuspected?: Set<string>;
  /**
   * ENABLE_WEBHOOKS=false: no webhook records who approved, so approval annotations could be anyone's.
   * They are ignored (fail closed): a Revision waiting for approval keeps waiting.
   */
  approvalsOff?: boolean;
  now?: () => Date;
}

/**
 * What a Revision applies: the rendered objects and their rollout groups; with `listed`, the managed
 * objects a plan found a moment ago (and the kinds it could not list), which a rollout in the same
 * reconcile prunes against instead of listing again.
 */
type Desired = {
  objects: KubeObject[];
  groups: Group[];
  listed?: { managed: KubeObject[]; unlisted: Set<string> };
};
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
const keyOf = (r: KubeObject) => `${r.metadata!.namespace}/${r.metadata!.name}`;

export function revisionReconciler(o: RevisionReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  /**
   * When each deployed Revision was last known to match the cluster (checked, or just rolled out) and
   * the Application's generation then. A Revision is reconciled on every change of its Application
   * (its status too), and a drift check is a render and a dry run of every object: without this, each
   * rollout was followed at once by a check of what it had just applied.
   */
  const lastInSync = new Map<string, { at: number; generation: number | undefined }>();
  /** Revisions told (Event ApprovalsDisabled) that approvals are off; once per Revision and process. */
  const approvalsOffTold = new Set<string>();

  /** Whether a Healthy Revision's drift check is due now (see lastInSync). */
  function driftCheckDue(key: string, app: Application): boolean {
    const last = lastInSync.get(key);
    if (!last) return true; // After a restart or a self-heal.
    if (o.driftSuspected?.has(key) || last.generation !== app.metadata?.generation) return true;
    // The requeue after a check comes back after the interval; a little early counts.
    return now().getTime() - last.at >= o.driftIntervalMs! - 1_000;
  }

  /**
   * When this reconciler last ended a rollout (Healthy or Failed), by Revision key: the attempt. A
   * reconcile that still sees that attempt Applying reads a cache behind its own write and waits for
   * it, so an end (its Events and notification) happens once.
   */
  const ended = new Map<string, number>();

  /** A merge patch of status: null removes a field; each field given replaces the old value whole. */
  async function writeStatus(rev: Revision, status: StatusPatch) {
    await o.client.request({
      method: "PATCH",
      path: `/apis/${API_VERSION}/namespaces/${rev.metadata!.namespace}/revisions/${
        rev.metadata!.name
      }/status`,
      contentType: "application/merge-patch+json",
      body: { status: replacingMergePatch(rev.status, status) },
    });
  }

  /** The Application's status from `build`, again from a fresh copy when the cached one is behind. */
  async function writeAppStatus(
    app: Application,
    build: (a: Application) => NonNullable<Application["status"]>,
  ) {
    const path = `/apis/${API_VERSION}/namespaces/${app.metadata!.namespace}/applications/${
      app.metadata!.name
    }`;
    await patchStatusLocked(o.client, path, app, build);
  }

  const desiredState = (rev: Revision, app: Application, sa: KubeClient) => renderDesired(o, rev, app, sa);

  function inventory(sa: KubeClient, app: Application, objects: KubeObject[], unlisted = new Set<string>()) {
    return () => listManaged(sa, app, objects, unlisted);
  }

  function plan(rev: Revision, app: Application, sa: KubeClient): Promise<Plan> {
    return planned(rev, app, sa).then((p) => p.plan);
  }

  /** The plan and the desired state it was made from (automatic sync rolls that out at once). */
  function planned(
    rev: Revision,
    app: Application,
    sa: KubeClient,
  ): Promise<{ plan: Plan; desired: Desired; unchanged: boolean }> {
    return inSpan(
      "plan",
      { "gitsync.revision": `${rev.metadata!.namespace}/${rev.metadata!.name}` },
      async () => {
        const { objects, groups } = await desiredState(rev, app, sa);
        const unlisted = new Set<string>();
        const managed = await inventory(sa, app, objects, unlisted)();
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
          : planPrune(managed, changes.map((c) => c.desired));
        const built = buildPlan({
          changes,
          prune: pruned.delete,
          pruneSkipped: pruned.skipped,
          redact: o.redact,
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

  /**
   * Drift: the deployed Revision's objects (hooks aside) dry-run applied as the service account; what
   * would be created or changed has drifted. Reported on the Application (condition Drifted, Event
   * DriftDetected once per transition). With spec.sync.selfHeal the Revision rolls out again: at once
   * when the Application syncs automatically, else after a fresh approval of the new plan.
   */
  async function checkDrift(rev: Revision, app: Application, sa: KubeClient): Promise<void> {
    const { groups } = await desiredState(rev, app, sa);
    const objects = groups.flatMap((g) => (g.stage === "wave" ? g.objects : []));
    const changes = await applyObjects(sa, objects, {
      conflictPolicy: "adopt", // a dry run: shows what taking the fields back would change
      defaultNamespace: app.metadata!.namespace!,
      dryRun: true,
      live: liveLookup(await inventory(sa, app, objects)(), app.metadata!.namespace!),
    });
    const current = buildPlan({ changes, prune: [], pruneSkipped: [], redact: o.redact });
    const drifted = current.entries.filter((e) => e.action === "create" || e.action === "update");
    const was = app.status?.conditions?.find((c) => c.type === "Drifted")?.status;
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
      await writeAppStatus(
        app,
        (a) => ({ conditions: setCondition(a.status?.conditions, condition, now()) }),
      );
      if (drifted.length) await o.events.warning(app, "DriftDetected", condition.message);
    }
    if (!drifted.length || !app.spec.sync?.selfHeal) return;
    const automatic = app.spec.sync.automatic === true;
    const attempt = (rev.status?.rollout?.attempt ?? 1) + 1;
    if (automatic) {
      await writeStatus(rev, {
        phase: "Applying",
        rollout: { attempt, group: 0, selfHeal: true },
        startedAt: iso(now()),
        finishedAt: null,
      });
      await o.events.normal(rev, "SelfHeal", `restoring ${names}`);
    } else {
      // A later rollout of the same Revision needs a fresh approval (seed section 3).
      const full = await plan(rev, app, sa);
      await writeStatus(rev, {
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
  }

  /** A diagnosis of `unhealthy` when due (diagnosis/fresh.ts); undefined when it found nothing new. */
  const diagnosed = (rev: Revision, sa: KubeClient, unhealthy: KubeObject[], force = false) =>
    freshDiagnosis(rev, unhealthy, { sa, events: o.events, redact: o.redact, now: now(), force });

  /** A lifecycle notification, once per transition (the callers run once per transition). */
  function tell(app: Application, rev: Revision, event: NotificationEvent, message: string, plan?: Plan) {
    o.notify?.(app, {
      event,
      application: { namespace: app.metadata!.namespace!, name: app.metadata!.name! },
      revision: rev.metadata!.name!,
      sourceRevision: rev.spec.sourceRevision,
      message: o.redact(message),
      ...(plan ? { planSummary: plan.summary, planDigest: plan.digest } : {}),
    });
  }

  /**
   * The Revision fails (one status write with `status`, what the failing step recorded), Event and
   * notification once; the Application's Ready says so and what is live (`changedCluster`: the rollout
   * got as far as applying objects).
   */
  async function fail(
    rev: Revision,
    app: Application,
    failure: { reason: string; message: string; resource?: unknown },
    extra: { status?: StatusPatch; changedCluster?: boolean } = {},
  ) {
    const redacted = { ...failure, message: o.redact(failure.message) };
    await writeStatus(rev, { ...extra.status, ...failedStatus(rev, redacted, now()) });
    ended.set(keyOf(rev), extra.status?.rollout?.attempt ?? rev.status?.rollout?.attempt ?? 1);
    await o.events.warning(rev, failure.reason, failure.message);
    tell(app, rev, "Failed", `${failure.reason}: ${failure.message}`);
    const changed = extra.changedCluster === true;
    await writeAppStatus(app, (a) => ({
      conditions: failedConditions(a, rev.metadata!.name!, redacted, changed, now()),
    }));
    return {};
  }

  /**
   * A retry request (the Application's retry-requested-at, newer than the one this Revision handled) takes
   * a Failed Revision with a retryable reason back to Applying: the next rollout attempt, from the group
   * where it stopped, under the same approval; the hook that failed runs again, succeeded hooks do not.
   */
  async function retried(rev: Revision, app: Application): Promise<ReconcileResult> {
    const requested = app.metadata?.annotations?.[RETRY_REQUESTED_AT];
    if (!requested || requested === rev.status?.lastHandledRetryAt) return {};
    const failure = rev.status?.failure;
    if (failure?.retryable === false) {
      await writeStatus(rev, { lastHandledRetryAt: requested });
      await o.events.warning(
        rev,
        "RetryRefused",
        `${failure.reason} is not retried: it needs a change in Git (a new commit makes a new Revision)`,
      );
      return {};
    }
    const attempt = (rev.status?.rollout?.attempt ?? 1) + 1;
    await writeStatus(rev, {
      phase: "Applying",
      failure: null,
      finishedAt: null,
      diagnosis: null,
      lastHandledRetryAt: requested,
      rollout: {
        attempt,
        group: rev.status?.rollout?.group ?? 0,
        selfHeal: rev.status?.rollout?.selfHeal ?? null,
      },
    });
    await o.events.normal(
      rev,
      "RetryStarted",
      `rollout attempt ${attempt} continues from where ${failure?.reason} stopped it`,
    );
    return { requeueAfterMs: 10 };
  }

  /**
   * A plan that changes nothing over a Healthy live state (plan/no_change.ts): the Revision is deployed
   * as it is, without approval or rollout; history and the Application say so (reason NoChanges).
   */
  async function deployedUnchanged(
    key: string,
    rev: Revision,
    app: Application,
    objects: KubeObject[],
    fresh: StatusPatch,
  ): Promise<ReconcileResult> {
    const name = rev.metadata!.name!;
    const message = `plan ${fresh.plan!.digest} changes nothing live: deployed without approval or rollout`;
    await writeStatus(rev, { ...fresh, ...completedStatus(rev, "NoChanges", message, now()) });
    ended.set(key, 1);
    await o.events.normal(rev, "NoChanges", message);
    await writeAppStatus(app, (a) => ({
      deployedRevision: name,
      managedKinds: managedKinds(objects),
      conditions: deployedConditions(a, name, {
        reason: "NoChanges",
        message: `Revision ${name} is deployed and Healthy (its plan changed nothing)`,
      }, now()),
    }));
    lastInSync.set(key, { at: now().getTime(), generation: app.metadata?.generation });
    return o.driftIntervalMs ? { requeueAfterMs: o.driftIntervalMs } : {};
  }

  /**
   * Rollout: one step of the groups (rollout.ts), then the status it leads to. `first`, when given, goes
   * into that status write (automatic sync's plan and approval: one write instead of two).
   */
  async function rollOut(
    key: string,
    rev: Revision,
    app: Application,
    sa: KubeClient,
    desired: Desired,
    first?: StatusPatch,
  ): Promise<ReconcileResult> {
    const { objects, groups, listed } = desired;
    const ns = rev.metadata!.namespace!;
    const state: RolloutState = {
      rollout: first?.rollout?.attempt ?? rev.status?.rollout?.attempt ?? 1,
      group: first?.rollout?.group ?? rev.status?.rollout?.group ?? 0,
      hooks: first?.hooks ?? rev.status?.hooks ?? [],
      ...(!first && rev.status?.rollout?.waitingSince
        ? { waitingSince: rev.status.rollout.waitingSince }
        : {}),
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
      namespace: ns,
      // Only this reconcile's own applies happened since the plan listed them: nothing to list again.
      inventory: listed ? () => Promise.resolve(listed.managed) : inventory(sa, app, objects, unlisted),
      prune: app.spec.sync?.prune !== false,
      desired: objects,
      healthTimeoutMs: app.spec.healthTimeout
        ? parseDuration(app.spec.healthTimeout)
        : DEFAULT_HEALTH_TIMEOUT_MS,
      now,
    });
    if (r.outcome === "progressing") {
      const diagnosis = r.unhealthy?.length ? await diagnosed(rev, sa, r.unhealthy) : undefined;
      await writeStatus(rev, {
        ...first,
        rollout: stored(r.state, selfHeal, r.waitingFor),
        hooks: r.state.hooks,
        ...(diagnosis ? { diagnosis } : {}),
      });
      if (waitedObject(r.waitingFor) !== waitedObject(rev.status?.rollout?.waitingFor)) {
        await o.events.normal(rev, "Waiting", `group ${r.state.group}: waiting for ${r.waitingFor}`);
      }
      return { requeueAfterMs: 1_000 };
    }
    if (r.outcome === "failed") {
      // Say why: for a wave, the diagnosis of its unhealthy objects, whose first root cause goes into the
      // message; for a failed hook Job, why its Pods failed.
      const res = r.failure.resource;
      const live = r.unhealthy ?? (res.kind === "Job" && res.name
        ? await sa.request<KubeObject>({
          path: `/apis/batch/v1/namespaces/${res.namespace ?? ns}/jobs/${res.name}`,
        }).then((j) => [{ ...j, kind: "Job", apiVersion: "batch/v1" }], () => [])
        : []);
      const diagnosis = live.length ? await diagnosed(rev, sa, live, true) : undefined;
      const message = r.failure.reason === "HealthFailure"
        ? withRootCause(r.failure.message, diagnosis ?? rev.status?.diagnosis)
        : r.failure.message;
      return await fail(rev, app, { ...r.failure, message }, {
        status: {
          ...first,
          rollout: stored(r.state, selfHeal),
          hooks: r.state.hooks,
          ...(diagnosis ? { diagnosis } : {}),
        },
        // Pre-sync hooks change nothing the deployed Revision runs; a wave or prune does.
        changedCluster: groups.slice(0, r.state.group + 1).some((g) =>
          g.stage === "wave" || g.stage === "prune"
        ),
      });
    }
    await writeStatus(rev, {
      ...first,
      ...completedStatus(rev, "RolloutComplete", "every group is Healthy", now()),
      diagnosis: null,
      rollout: stored(r.state, selfHeal),
      hooks: r.state.hooks,
    });
    ended.set(key, state.rollout);
    if (r.pruneSkipped) await o.events.warning(rev, "PruneSkipped", r.pruneSkipped);
    if (unlisted.size) {
      await o.events.warning(
        rev,
        "PruneInventoryIncomplete",
        `${rev.spec.serviceAccountName} may not list ${[...unlisted].sort().join(", ")}: left out of pruning`,
      );
    }
    await o.events.normal(rev, "RolloutComplete", "every group is Healthy");
    const rolledBack = app.status?.rollback?.revision === rev.metadata!.name;
    if (rolledBack) {
      await o.events.normal(app, "RolledBack", `rolled back to Revision ${rev.metadata!.name}`);
    }
    tell(
      app,
      rev,
      rolledBack ? "RolledBack" : "Healthy",
      rolledBack ? `rolled back to Revision ${rev.metadata!.name}` : "every group is Healthy",
    );
    await writeAppStatus(app, (a) => ({
      deployedRevision: rev.metadata!.name,
      managedKinds: managedKinds(objects),
      conditions: deployedConditions(a, rev.metadata!.name!, {
        reason: rolledBack ? "RolledBack" : "RolloutComplete",
        message: `Revision ${rev.metadata!.name} is deployed and Healthy`,
      }, now()),
    }));
    // After a self-heal, check at once that the drift is gone (the Drifted condition clears then);
    // otherwise what was just applied is in sync until the interval or a change says otherwise.
    if (selfHeal) lastInSync.delete(key);
    else lastInSync.set(key, { at: now().getTime(), generation: app.metadata?.generation });
    if (!o.driftIntervalMs) return {};
    return { requeueAfterMs: rev.status?.rollout?.selfHeal ? 1_000 : o.driftIntervalMs };
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const rev = o.getRevision(key);
    if (!rev) {
      lastInSync.delete(key); // Deleted (history): nothing of it to remember.
      o.driftSuspected?.delete(key);
      return {};
    }
    const ns = rev.metadata!.namespace!;
    const app = o.getApplication(`${ns}/${rev.spec.applicationRef.name}`);
    if (!app) return {};
    const phase = rev.status?.phase ?? "Pending";
    // Not wanted (any more): one that moved on regardless ends Superseded (a Pending one may be about to
    // be wanted: the Application reconciler supersedes those).
    if (app.status?.desiredRevision !== rev.metadata!.name) {
      // A rollback being set up makes this Revision wanted in a moment (the cache has its status already).
      const rollback = app.metadata?.annotations?.[ROLLBACK_REQUESTED_AT];
      if (rollback && rollback !== app.status?.rollback?.requestedAt) return {};
      if (phase === "Pending" || !UNFINISHED_PHASES.has(phase)) return {};
      await writeStatus(rev, supersededStatus(rev, app.status!.desiredRevision!, now()));
      return {};
    }
    // Suspended: nothing moves (no plan, rollout step, drift check or self-heal); the rollout's state is in
    // status, so resuming continues where it stopped.
    if (app.spec.suspend) return {};
    // The cache is behind the end of a rollout this reconciler wrote: wait for it (an end happens once).
    const behind = phase === "Applying" || phase === "Pending";
    if (behind && ended.get(key) === (rev.status?.rollout?.attempt ?? 1)) return { requeueAfterMs: 200 };
    ended.delete(key);
    if (phase === "Failed") return await retried(rev, app);
    const sa = o.client.impersonating({ user: `system:serviceaccount:${ns}:${rev.spec.serviceAccountName}` });
    try {
      // Observe: a deployed Revision is compared with the cluster on the drift interval.
      if (phase === "Healthy") {
        if (!o.driftIntervalMs || app.status?.deployedRevision !== rev.metadata!.name) return {};
        if (!driftCheckDue(key, app)) return {}; // Its requeue is already pending.
        o.driftSuspected?.delete(key);
        const checkedAt = now().getTime();
        await checkDrift(rev, app, sa);
        lastInSync.set(key, { at: checkedAt, generation: app.metadata?.generation });
        return { requeueAfterMs: o.driftIntervalMs };
      }

      // Plan (again, for a Superseded Revision the Application wants once more).
      if (phase === "Pending" || phase === "Planning" || phase === "Superseded") {
        const { plan: p, desired, unchanged } = await planned(rev, app, sa);
        const fresh = {
          plan: p,
          rollout: { attempt: 1, group: 0, selfHeal: null },
          hooks: [],
          ...(phase === "Superseded"
            ? { approval: null, startedAt: null, finishedAt: null, failure: null, diagnosis: null }
            : {}),
        };
        // Nothing to change and what runs is Healthy: deployed as it is, no approval, no rollout.
        if (unchanged && app.status?.deployedRevision) {
          return await deployedUnchanged(key, rev, app, desired.objects, fresh);
        }
        if (app.spec.sync?.automatic !== true) {
          await writeStatus(rev, { phase: "AwaitingApproval", ...fresh });
          await o.events.normal(rev, "AwaitingApproval", `plan ${p.digest} waits for approval`);
          tell(app, rev, "AwaitingApproval", `plan ${p.digest} waits for approval`, p);
          return { requeueAfterMs: 0 };
        }
        // Automatic sync approves the plan it just made and rolls out what was planned at once: no second
        // render or plan, and the plan goes into the same status write as the rollout's first step.
        return await rollOut(key, rev, app, sa, desired, {
          phase: "Applying",
          ...fresh,
          approval: { approvedBy: "automatic", approvedAt: iso(now()), planDigest: p.digest },
          startedAt: iso(now()),
        });
      }

      // Approval: the webhook recorded who approved which digest on the Application.
      if (phase === "AwaitingApproval") {
        if (o.approvalsOff) {
          if (!approvalsOffTold.has(key)) {
            approvalsOffTold.add(key);
            await o.events.warning(
              rev,
              "ApprovalsDisabled",
              "the manager runs with ENABLE_WEBHOOKS=false: approvals are ignored, so this plan cannot be " +
                "approved; turn the webhook on, or let the Application sync automatically",
            );
          }
          return {};
        }
        const a = app.metadata?.annotations ?? {};
        if (a[APPROVED_REVISION] !== rev.metadata!.name || a[APPROVED_DIGEST] !== rev.status?.plan?.digest) {
          return {};
        }
        await writeStatus(rev, {
          phase: "Applying",
          approval: {
            approvedBy: a[APPROVED_BY]!,
            approvedAt: a[APPROVED_AT]!,
            planDigest: a[APPROVED_DIGEST]!,
          },
        });
        return { requeueAfterMs: 10 };
      }

      // Rollout.
      if (!rev.status?.startedAt) {
        // Rollout start: the plan must still be the approved one. A rollback's approval binds to the
        // desired state instead (the live objects have moved on since, so its old plan cannot match).
        const approved = rev.status?.approval;
        const rollback = Boolean(approved?.desiredStateHash);
        const current = await plan(rev, app, sa);
        const stale = rollback
          ? current.desiredStateHash !== approved?.desiredStateHash
          : current.digest !== approved?.planDigest;
        if (stale) {
          await writeStatus(rev, { phase: "AwaitingApproval", plan: current, approval: null });
          await o.events.warning(
            rev,
            "ApprovalStale",
            rollback
              ? "the desired state changed since this Revision was deployed; review its plan and approve it to roll back"
              : `the plan changed after it was approved (approved ${approved?.planDigest}, now ${current.digest}); approve again`,
          );
          return {};
        }
        // From here on the applied objects are the plan's, so the plan is not computed again.
        await writeStatus(rev, { startedAt: iso(now()) });
      }
      return await rollOut(key, rev, app, sa, await desiredState(rev, app, sa));
    } catch (err) {
      // A render, plan or apply of the rollout's objects failed: a rollout under way may have changed
      // the cluster already.
      const changedCluster = phase === "Applying" && Boolean(rev.status?.startedAt);
      if (
        err instanceof RenderFailure || err instanceof ValidationFailure || err instanceof DecryptionFailure
      ) {
        return await fail(rev, app, { reason: err.reason, message: err.message }, { changedCluster });
      }
      if (err instanceof RolloutFailure) return await fail(rev, app, err, { changedCluster });
      throw err;
    } finally {
      sa.close();
    }
  };
}
