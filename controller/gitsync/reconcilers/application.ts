/**
 * The Application reconciler (seed sections 2, 3, 5.2): for each source commit and service account
 * there is one Revision; the Application points at the one to deploy. Reads as its states:
 * load → service account → source → Revision → status. Without a service account (the Application's
 * or the manager's --default-service-account) nothing is read or changed: condition
 * ServiceAccountRequired. The service account is part of the Revision's identity, so switching it
 * starts a fresh Revision.
 *
 * Rollback (seed section 3): a new value of the annotation sync.gitsync.io/rollback-requested-at points
 * the Application at its rollback target (rollback/target.ts: the newest known-good Revision other than
 * the desired one and, unless the desired one's rollout stopped part-way, the deployed one; or the
 * Revision sync.gitsync.io/rollback-to-revision names); that Revision rolls out again through the normal
 * reconcile, the request counting as its approval while its desired state is unchanged. The Application
 * stays there until the source moves to a new commit.
 * History: beyond spec.history.limit (default 10) the oldest Revisions are deleted, never the desired,
 * deployed or rollback one.
 */
import { createHash } from "node:crypto";
import {
  type EventRecorder,
  isKubeApiError,
  type KubeClient,
  replacingMergePatch,
} from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { rollbackTarget } from "../rollback/target.ts";
import { readyFromRevision, rollingBackConditions, setCondition } from "../status/conditions.ts";
import { supersededStatus } from "../status/revision_status.ts";
import {
  API_VERSION,
  type Application,
  APPLICATION_LABEL,
  type Condition,
  DEFAULT_HISTORY_LIMIT,
  type Repository,
  type Revision,
  ROLLBACK_REQUESTED_AT,
  ROLLBACK_REQUESTED_BY,
  ROLLBACK_TO_REVISION,
  UNFINISHED_PHASES,
} from "../api/mod.ts";

const APPROVALS_OFF_ROLLBACK = "approvals are off (the manager runs with ENABLE_WEBHOOKS=false): an " +
  "Application that does not sync automatically is not rolled back";

export interface ApplicationReconcilerOptions {
  client: KubeClient;
  getApplication: (key: string) => Application | undefined;
  getRepository: (key: string) => Repository | undefined;
  /** Checks a NotificationSink (and its Secret); throws an Error saying what is wrong. */
  checkSink?: (namespace: string, name: string) => Promise<void>;
  /** The Revisions of an Application (from the informer's cache). */
  listRevisions: (namespace: string, application: string) => Revision[];
  /** A Revision from the informer's cache, by namespace/name. */
  getRevision?: (key: string) => Revision | undefined;
  defaultServiceAccount?: string;
  events: EventRecorder;
  /**
   * ENABLE_WEBHOOKS=false: a rollback counts as an approval, and nothing records who asked; an
   * Application that does not sync automatically is then not rolled back (fail closed).
   */
  approvalsOff?: boolean;
  now?: () => Date;
}

/** The Revision for a commit, service account and spec: same inputs, same name. */
export function revisionName(app: Application, commit: string, serviceAccount: string): string {
  const hash = createHash("sha256")
    .update(commit).update("\0").update(serviceAccount).update("\0")
    .update(JSON.stringify(app.spec.source));
  // Only when set, so that Applications without decryption keep their Revision names.
  if (app.spec.decryption) hash.update("\0").update(JSON.stringify(app.spec.decryption));
  const id = hash.digest("hex").slice(0, 10);
  return `${app.metadata!.name}-${id}`;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

export function applicationReconciler(o: ApplicationReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  const base = (ns: string) => `/apis/${API_VERSION}/namespaces/${ns}`;

  async function writeStatus(app: Application, status: Application["status"]) {
    await o.client.request({
      method: "PATCH",
      path: `${base(app.metadata!.namespace!)}/applications/${app.metadata!.name}/status`,
      contentType: "application/merge-patch+json",
      // Fields written replace what was there whole (a rollback's old message does not outlive it).
      body: {
        status: replacingMergePatch(app.status, { ...status, observedGeneration: app.metadata?.generation }),
      },
    });
  }

  async function ready(
    app: Application,
    status: "True" | "False",
    reason: string,
    message: string,
    extra = {},
  ) {
    const before = app.status?.conditions?.find((c) => c.type === "Ready");
    await writeStatus(app, {
      ...extra,
      conditions: setCondition(app.status?.conditions, { type: "Ready", status, reason, message }, now()),
    });
    if (before?.reason !== reason && status === "False") await o.events.warning(app, reason, message);
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    // Load.
    const app = o.getApplication(key);
    if (!app || app.spec.suspend) return {};
    const ns = app.metadata!.namespace!;

    // Service account: without one, nothing is read or changed.
    const serviceAccount = app.spec.serviceAccountName || o.defaultServiceAccount;
    if (!serviceAccount) {
      await ready(
        app,
        "False",
        "ServiceAccountRequired",
        "set spec.serviceAccountName, or start the manager with --default-service-account; nothing is read or applied without one",
      );
      return {};
    }

    // Notification sinks: condition NotificationsReady (a missing sink or an invalid Secret).
    if (app.spec.notifications?.length && o.checkSink) {
      const problems: string[] = [];
      for (const n of app.spec.notifications) {
        await o.checkSink(ns, n.sinkRef.name).catch((err) => problems.push((err as Error).message));
      }
      const wanted = problems.length
        ? { type: "NotificationsReady", status: "False", reason: "SinkInvalid", message: problems.join("; ") }
        : {
          type: "NotificationsReady",
          status: "True",
          reason: "SinksReady",
          message: "every sink is usable",
        };
      const current = app.status?.conditions?.find((c) => c.type === "NotificationsReady");
      if (current?.status !== wanted.status || current?.message !== wanted.message) {
        await writeStatus(app, { conditions: setCondition(app.status?.conditions, wanted, now()) });
        return { requeueAfterMs: 10 }; // continue with a fresh copy from the cache
      }
    }

    // Source.
    const repo = o.getRepository(`${ns}/${app.spec.source.repositoryRef.name}`);
    const commit = repo?.status?.artifact?.revision;
    if (!commit) {
      await ready(
        app,
        "False",
        "SourceNotReady",
        `Repository ${ns}/${app.spec.source.repositoryRef.name} has no fetched commit yet`,
      );
      return { requeueAfterMs: 5_000 };
    }

    // Rollback: a new request picks the target and points the Application at it.
    const annotations = app.metadata?.annotations ?? {};
    const requestedAt = annotations[ROLLBACK_REQUESTED_AT];
    if (requestedAt && requestedAt !== app.status?.rollback?.requestedAt) {
      return await rollBack(app, requestedAt, annotations[ROLLBACK_REQUESTED_BY], commit);
    }
    // Ready gave a reason of this reconciler's own (no commit, no service account) that holds no more:
    // it follows the desired Revision again.
    const readyReason = app.status?.conditions?.find((c) => c.type === "Ready")?.reason;
    const staleReady = readyReason === "SourceNotReady" || readyReason === "ServiceAccountRequired";
    // A rollback holds until the source moves on to a new commit.
    if (app.status?.rollback?.revision && app.status.rollback.sourceRevision === commit) {
      if (staleReady) await writeStatus(app, { conditions: readyNow(app, app.status.rollback.revision) });
      return await keepHistory(app);
    }

    // Revision: one per commit, service account and source; created once, owned by the Application.
    // The Application is reconciled on each of its own status writes: the cache answers "exists" then.
    const name = revisionName(app, commit, serviceAccount);
    if (!o.getRevision?.(`${ns}/${name}`)) await createRevision(app, name, commit, serviceAccount);

    // Status: which Revision to deploy. Readiness follows the Revision (its reconciler reports it).
    if (app.status?.desiredRevision !== name || app.status?.sourceRevision !== commit || staleReady) {
      await writeStatus(app, {
        desiredRevision: name,
        sourceRevision: commit,
        // Conditions only when they change: the list goes whole, and a cached one may be behind.
        ...(staleReady ? { conditions: readyNow(app, name) } : {}),
      });
      await supersede(app, name);
    }
    return await keepHistory(app, name);
  };

  /**
   * The Revision the Application wanted until now ends Superseded when unfinished (the Revision
   * reconciler does the same for one it finds moving on without being wanted; a Pending one only the
   * Application can tell from one about to be wanted).
   */
  async function supersede(app: Application, by: string) {
    const ns = app.metadata!.namespace!;
    const was = app.status?.desiredRevision;
    const rev = was && was !== by ? o.getRevision?.(`${ns}/${was}`) : undefined;
    if (!rev || !UNFINISHED_PHASES.has(rev.status?.phase ?? "Pending")) return;
    await o.client.request({
      method: "PATCH",
      path: `${base(ns)}/revisions/${was}/status`,
      contentType: "application/merge-patch+json",
      body: { status: replacingMergePatch(rev.status, supersededStatus(rev, by, now())) },
    }).catch((err) => {
      if (!isKubeApiError(err, 404)) throw err;
    });
    await o.events.normal(rev, "Superseded", `Application ${app.metadata!.name} wants Revision ${by} now`);
  }

  /** Ready as the desired Revision `name` stands now. */
  function readyNow(app: Application, name: string): Condition[] {
    return readyFromRevision(app, name, o.getRevision?.(`${app.metadata!.namespace}/${name}`), now());
  }

  /** Creates the Revision (an existing one, 409, is fine: the cache had not seen it yet). */
  async function createRevision(app: Application, name: string, commit: string, serviceAccount: string) {
    const ns = app.metadata!.namespace!;
    try {
      await o.client.request({
        method: "POST",
        path: `${base(ns)}/revisions`,
        body: {
          apiVersion: API_VERSION,
          kind: "Revision",
          metadata: {
            name,
            labels: { [APPLICATION_LABEL]: app.metadata!.name! },
            ownerReferences: [{
              apiVersion: API_VERSION,
              kind: "Application",
              name: app.metadata!.name,
              uid: app.metadata!.uid,
              controller: true,
            }],
          },
          spec: {
            applicationRef: { name: app.metadata!.name },
            sourceRevision: commit,
            serviceAccountName: serviceAccount,
          },
        },
      });
      await o.events.normal(
        app,
        "RevisionCreated",
        `Revision ${name} for commit ${commit.slice(0, 12)} as ${serviceAccount}`,
      );
    } catch (err) {
      if (!isKubeApiError(err, 409)) throw err;
    }
  }

  /** Points the Application at the rollback target and starts its rollout, approved by the request. */
  async function rollBack(
    app: Application,
    requestedAt: string,
    requestedBy: string | undefined,
    commit: string,
  ): Promise<ReconcileResult> {
    const ns = app.metadata!.namespace!;
    // With approvals off nothing records who asked, and the request would count as an approval.
    const found = o.approvalsOff && app.spec.sync?.automatic !== true
      ? { refused: APPROVALS_OFF_ROLLBACK }
      : rollbackTarget(
        app,
        o.listRevisions(ns, app.metadata!.name!),
        app.metadata?.annotations?.[ROLLBACK_TO_REVISION],
        (name) => o.getRevision?.(`${ns}/${name}`),
      );
    const request = { requestedAt, ...(requestedBy ? { requestedBy } : {}), sourceRevision: commit };
    if ("refused" in found) {
      const message = found.refused;
      await writeStatus(app, { rollback: { ...request, message } });
      await o.events.warning(app, "RollbackFailed", message);
      return {};
    }
    const target = found.revision;
    const rev = target.metadata!.name!;
    // A fresh rollout of the target: hooks run again; the request is its approval while the desired
    // state is what it was (checked at rollout start against plan.desiredStateHash).
    await o.client.request({
      method: "PATCH",
      path: `${base(ns)}/revisions/${rev}/status`,
      contentType: "application/merge-patch+json",
      body: {
        status: replacingMergePatch(target.status, {
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
        }),
      },
    });
    await writeStatus(app, {
      desiredRevision: rev,
      rollback: { ...request, revision: rev },
      conditions: rollingBackConditions(app, rev, now()),
    });
    await supersede(app, rev);
    await o.events.normal(app, "RollbackStarted", `rolling back to Revision ${rev}`);
    return {};
  }

  /** Deletes the oldest Revisions beyond spec.history.limit; never the desired, deployed or rollback one. */
  async function keepHistory(
    app: Application,
    desired = app.status?.desiredRevision,
  ): Promise<ReconcileResult> {
    const ns = app.metadata!.namespace!;
    const limit = app.spec.history?.limit ?? DEFAULT_HISTORY_LIMIT;
    const keep = new Set([desired, app.status?.deployedRevision, app.status?.rollback?.revision]);
    const revisions = o.listRevisions(ns, app.metadata!.name!)
      .sort((a, b) =>
        (b.metadata!.creationTimestamp ?? "").localeCompare(a.metadata!.creationTimestamp ?? "")
      );
    const excess = revisions.length - limit;
    if (excess <= 0) return {};
    const oldestFirst = [...revisions].reverse().filter((r) => !keep.has(r.metadata!.name));
    for (const r of oldestFirst.slice(0, excess)) {
      await o.client.request({ method: "DELETE", path: `${base(ns)}/revisions/${r.metadata!.name}` }).catch(
        (err) => {
          if (!isKubeApiError(err, 404)) throw err;
        },
      );
    }
    return {};
  }
}
