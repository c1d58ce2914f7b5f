/**
 * What every phase of the Revision reconciler works with: one context per reconcile (the Revision, its
 * Application, the service account's client, the options) and the few side effects all phases share,
 * each through a narrow client: the Revision's status, the Application's status, Events and
 * notifications, and the end of a rollout (Failed).
 */
import type { EventRecorder, KubeClient, KubeObject } from "../../../../internal/k8s/mod.ts";
import { patchStatusLocked } from "../../../../internal/k8s/resources.ts";
import type { Application, Plan, Revision } from "../../api/mod.ts";
import { objectPath, patchStatus } from "../../client/mod.ts";
import type { Notification, NotificationEvent } from "../../notify/notifier.ts";
import type { Renderers } from "../../render/render.ts";
import { desiredState as renderDesired } from "../../rollout/desired_state.ts";
import type { Group } from "../../rollout/groups.ts";
import { listManaged } from "../../rollout/inventory.ts";
import type { ChartSource } from "../../source/helm/chart_source.ts";
import { failedConditions } from "../../status/conditions.ts";
import { failedStatus, type StatusPatch } from "../../status/revision_status.ts";

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
 * What the reconciler remembers between reconciles, by Revision key (lost on restart, which only costs a
 * check or a wait).
 */
export class RevisionMemory {
  /**
   * When each deployed Revision was last known to match the cluster (checked, or just rolled out) and
   * the Application's generation then. A Revision is reconciled on every change of its Application
   * (its status too), and a drift check is a render and a dry run of every object: without this, each
   * rollout was followed at once by a check of what it had just applied.
   */
  readonly lastInSync = new Map<string, { at: number; generation: number | undefined }>();
  /**
   * When this reconciler last ended a rollout (Healthy or Failed): the attempt. A reconcile that still
   * sees that attempt Applying reads a cache behind its own write and waits for it, so an end (its
   * Events and notification) happens once.
   */
  readonly ended = new Map<string, number>();
  /** Revisions told (Event ApprovalsDisabled) that approvals are off; once per Revision and process. */
  readonly approvalsOffTold = new Set<string>();

  /** A deleted Revision (history): nothing of it to remember. */
  forget(key: string) {
    this.lastInSync.delete(key);
  }

  /** The cache still shows the rollout this reconciler ended: wait for it (an end happens once). */
  behind(key: string, rev: Revision, phase: string): boolean {
    const behind = (phase === "Applying" || phase === "Pending") &&
      this.ended.get(key) === (rev.status?.rollout?.attempt ?? 1);
    if (!behind) this.ended.delete(key);
    return behind;
  }

  /** The cluster matches Revision `key` now (just rolled out, or just checked at `at`). */
  inSync(key: string, app: Application, at: number) {
    this.lastInSync.set(key, { at, generation: app.metadata?.generation });
  }
}

/** One reconcile of one Revision. */
export interface RevisionContext {
  o: RevisionReconcilerOptions;
  memory: RevisionMemory;
  now: () => Date;
  key: string;
  rev: Revision;
  app: Application;
  phase: string;
  /** The Application's service account (impersonated); closed when the reconcile ends. */
  sa: KubeClient;
}

/**
 * What a Revision applies: the rendered objects and their rollout groups; with `listed`, the managed
 * objects a plan found a moment ago (and the kinds it could not list), which a rollout in the same
 * reconcile prunes against instead of listing again.
 */
export type Desired = {
  objects: KubeObject[];
  groups: Group[];
  listed?: { managed: KubeObject[]; unlisted: Set<string> };
};

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** Render, label as managed, order into groups (rollout/desired_state.ts), as the service account. */
export const desiredState = (c: RevisionContext) => renderDesired(c.o, c.rev, c.app, c.sa);

/** The Application's managed objects, listed as the service account (kinds it may not list go to `unlisted`). */
export function inventory(c: RevisionContext, objects: KubeObject[], unlisted = new Set<string>()) {
  return () => listManaged(c.sa, c.app, objects, unlisted);
}

/** A merge patch of the Revision's status: null removes a field; each field given replaces the old value whole. */
export async function writeStatus(c: RevisionContext, status: StatusPatch) {
  await patchStatus(c.o.client, "revisions", c.rev, status, { replacing: true });
}

/** The Application's status from `build`, again from a fresh copy when the cached one is behind. */
export async function writeAppStatus(
  c: RevisionContext,
  build: (a: Application) => NonNullable<Application["status"]>,
) {
  const path = objectPath("applications", c.app.metadata!.namespace!, c.app.metadata!.name!);
  await patchStatusLocked(c.o.client, path, c.app, build);
}

/** A lifecycle notification, once per transition (the callers run once per transition). */
export function tell(c: RevisionContext, event: NotificationEvent, message: string, plan?: Plan) {
  const { app, rev } = c;
  c.o.notify?.(app, {
    event,
    application: { namespace: app.metadata!.namespace!, name: app.metadata!.name! },
    revision: rev.metadata!.name!,
    sourceRevision: rev.spec.sourceRevision,
    message: c.o.redact(message),
    ...(plan ? { planSummary: plan.summary, planDigest: plan.digest } : {}),
  });
}

/**
 * The Revision fails (one status write with `status`, what the failing step recorded), Event and
 * notification once; the Application's Ready says so and what is live (`changedCluster`: the rollout
 * got as far as applying objects).
 */
export async function fail(
  c: RevisionContext,
  failure: { reason: string; message: string; resource?: unknown },
  extra: { status?: StatusPatch; changedCluster?: boolean } = {},
) {
  const { rev, now } = c;
  const redacted = { ...failure, message: c.o.redact(failure.message) };
  await writeStatus(c, { ...extra.status, ...failedStatus(rev, redacted, now()) });
  c.memory.ended.set(c.key, extra.status?.rollout?.attempt ?? rev.status?.rollout?.attempt ?? 1);
  await c.o.events.warning(rev, failure.reason, failure.message);
  tell(c, "Failed", `${failure.reason}: ${failure.message}`);
  const changed = extra.changedCluster === true;
  await writeAppStatus(c, (a) => ({
    conditions: failedConditions(a, rev.metadata!.name!, redacted, changed, now()),
  }));
  return {};
}
