/**
 * The Application reconciler (seed sections 2, 3, 5.2): for each source commit and service account
 * there is one Revision; the Application points at the one to deploy. Reads as its states:
 * load → service account → source → Revision → status. Without a service account (the Application's
 * or the manager's --default-service-account) nothing is read or changed: condition
 * ServiceAccountRequired. The service account is part of the Revision's identity, so switching it
 * starts a fresh Revision.
 *
 * Rollback (seed section 3): a new value of the annotation sync.gitsync.io/rollback-requested-at points
 * the Application at the newest known-good Revision other than the desired and the deployed one; that
 * Revision rolls out again through the normal reconcile, the request counting as its approval while its
 * desired state is unchanged. The Application stays there until the source moves to a new commit.
 * History: beyond spec.history.limit (default 10) the oldest Revisions are deleted, never the desired,
 * deployed or rollback one.
 */
import { createHash } from "node:crypto";
import {
  type EventRecorder,
  isKubeApiError,
  type KubeClient,
  type KubeObject,
} from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { ROLLBACK_REQUESTED_AT, ROLLBACK_REQUESTED_BY } from "../approval/review.ts";
import { API_VERSION } from "../crds.ts";
import type { Repository } from "./repository.ts";
import type { Decryption } from "../sops/decrypt_tree.ts";
import type { Revision } from "./revision.ts";
import type { HelmSource } from "../render/helm_source.ts";

export interface Application extends KubeObject {
  spec: {
    serviceAccountName?: string;
    suspend?: boolean;
    sync?: { automatic?: boolean; selfHeal?: boolean; prune?: boolean };
    source: {
      repositoryRef: { name: string };
      path?: string;
      render?: { type?: "yaml" | "kustomize" | "helm"; helm?: HelmSource };
    };
    decryption?: Decryption;
    conflictPolicy?: "fail" | "adopt";
    history?: { limit?: number };
    notifications?: { sinkRef: { name: string }; events?: string[] }[];
  };
  status?: {
    observedGeneration?: number;
    sourceRevision?: string;
    desiredRevision?: string;
    deployedRevision?: string;
    rollback?: {
      requestedAt: string;
      requestedBy?: string;
      revision?: string;
      sourceRevision?: string;
      message?: string;
    };
    managedKinds?: { group: string; version: string; kind: string; namespaced?: boolean }[];
    conditions?: Condition[];
  };
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

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

/** A condition list with `c` set; lastTransitionTime kept when the status did not change. */
export function setCondition(list: Condition[] | undefined, c: Condition, now: Date): Condition[] {
  const previous = list?.find((x) => x.type === c.type);
  const lastTransitionTime = previous && previous.status === c.status
    ? previous.lastTransitionTime
    : now.toISOString().replace(/\.\d{3}Z$/, "Z");
  return [...(list ?? []).filter((x) => x.type !== c.type), { ...c, lastTransitionTime }];
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

export const DEFAULT_HISTORY_LIMIT = 10;
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The rollback target: the newest Revision that reached Healthy, other than the desired and deployed one. */
export function rollbackTarget(app: Application, revisions: Revision[]): Revision | undefined {
  return revisions
    .filter((r) =>
      r.status?.conditions?.some((c) => c.type === "RolloutComplete" && c.status === "True") &&
      r.metadata!.name !== app.status?.desiredRevision &&
      r.metadata!.name !== app.status?.deployedRevision
    )
    .sort((a, b) => (b.status?.finishedAt ?? "").localeCompare(a.status?.finishedAt ?? ""))[0];
}

export function applicationReconciler(o: ApplicationReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  const base = (ns: string) => `/apis/${API_VERSION}/namespaces/${ns}`;

  async function writeStatus(app: Application, status: Application["status"]) {
    await o.client.request({
      method: "PATCH",
      path: `${base(app.metadata!.namespace!)}/applications/${app.metadata!.name}/status`,
      contentType: "application/merge-patch+json",
      body: { status: { ...status, observedGeneration: app.metadata?.generation } },
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
      if (o.approvalsOff && app.spec.sync?.automatic !== true) {
        return await refuseRollback(app, requestedAt, commit);
      }
      return await rollBack(app, requestedAt, annotations[ROLLBACK_REQUESTED_BY], commit);
    }
    // A rollback holds until the source moves on to a new commit.
    if (app.status?.rollback?.revision && app.status.rollback.sourceRevision === commit) {
      return await keepHistory(app);
    }

    // Revision: one per commit, service account and source; created once, owned by the Application.
    // The Application is reconciled on each of its own status writes: the cache answers "exists" then.
    const name = revisionName(app, commit, serviceAccount);
    if (!o.getRevision?.(`${ns}/${name}`)) await createRevision(app, name, commit, serviceAccount);

    // Status: which Revision to deploy. Readiness follows the Revision (its reconciler reports it).
    if (app.status?.desiredRevision !== name || app.status?.sourceRevision !== commit) {
      await writeStatus(app, {
        desiredRevision: name,
        sourceRevision: commit,
        conditions: app.status?.conditions ?? [],
      });
    }
    return await keepHistory(app, name);
  };

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
            labels: { "sync.gitsync.io/application": app.metadata!.name! },
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

  /** With approvals off, a rollback request of an Application that needs approval is recorded and refused. */
  async function refuseRollback(
    app: Application,
    requestedAt: string,
    commit: string,
  ): Promise<ReconcileResult> {
    const message = "approvals are off (the manager runs with ENABLE_WEBHOOKS=false): an Application that " +
      "does not sync automatically is not rolled back";
    await writeStatus(app, {
      rollback: { requestedAt, sourceRevision: commit, message },
      conditions: app.status?.conditions ?? [],
    });
    await o.events.warning(app, "RollbackFailed", message);
    return {};
  }

  /** Points the Application at the rollback target and starts its rollout, approved by the request. */
  async function rollBack(
    app: Application,
    requestedAt: string,
    requestedBy: string | undefined,
    commit: string,
  ): Promise<ReconcileResult> {
    const ns = app.metadata!.namespace!;
    const target = rollbackTarget(app, o.listRevisions(ns, app.metadata!.name!));
    const request = { requestedAt, ...(requestedBy ? { requestedBy } : {}), sourceRevision: commit };
    if (!target) {
      const message = "no known-good Revision other than the desired and the deployed one to roll back to";
      await writeStatus(app, { rollback: { ...request, message }, conditions: app.status?.conditions ?? [] });
      await o.events.warning(app, "RollbackFailed", message);
      return {};
    }
    const rev = target.metadata!.name!;
    // A fresh rollout of the target: hooks run again; the request is its approval while the desired
    // state is what it was (checked at rollout start against plan.desiredStateHash).
    await o.client.request({
      method: "PATCH",
      path: `${base(ns)}/revisions/${rev}/status`,
      contentType: "application/merge-patch+json",
      body: {
        status: {
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
          conditions: setCondition(target.status?.conditions, {
            type: "RolloutComplete",
            status: "False",
            reason: "RollingBack",
            message: `rolling back to this Revision, requested by ${requestedBy ?? "unknown"}`,
          }, now()),
        },
      },
    });
    await writeStatus(app, {
      desiredRevision: rev,
      rollback: { ...request, revision: rev },
      conditions: app.status?.conditions ?? [],
    });
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
