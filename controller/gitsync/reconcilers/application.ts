/**
 * The Application reconciler (seed sections 2, 3, 5.2): for each source commit and service account
 * there is one Revision; the Application points at the one to deploy. Reads as its states:
 * load → service account → source → Revision → status. Without a service account (the Application's
 * or the manager's --default-service-account) nothing is read or changed: condition
 * ServiceAccountRequired. The service account is part of the Revision's identity, so switching it
 * starts a fresh Revision.
 */
import { createHash } from "node:crypto";
import {
  type EventRecorder,
  isKubeApiError,
  type KubeClient,
  type KubeObject,
} from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { API_VERSION } from "../crds.ts";
import type { Repository } from "./repository.ts";

export interface Application extends KubeObject {
  spec: {
    serviceAccountName?: string;
    suspend?: boolean;
    sync?: { automatic?: boolean };
    source: { repositoryRef: { name: string }; path?: string };
    conflictPolicy?: "fail" | "adopt";
  };
  status?: {
    observedGeneration?: number;
    sourceRevision?: string;
    desiredRevision?: string;
    deployedRevision?: string;
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
  defaultServiceAccount?: string;
  events: EventRecorder;
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
  const id = createHash("sha256")
    .update(commit).update("\0").update(serviceAccount).update("\0")
    .update(JSON.stringify(app.spec.source))
    .digest("hex").slice(0, 10);
  return `${app.metadata!.name}-${id}`;
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

    // Revision: one per commit, service account and source; created once, owned by the Application.
    const name = revisionName(app, commit, serviceAccount);
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

    // Status: which Revision to deploy. Readiness follows the Revision (its reconciler reports it).
    if (app.status?.desiredRevision !== name || app.status?.sourceRevision !== commit) {
      await writeStatus(app, {
        desiredRevision: name,
        sourceRevision: commit,
        conditions: app.status?.conditions ?? [],
      });
    }
    return {};
  };
}
