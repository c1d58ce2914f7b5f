/**
 * The Application reconciler (seed sections 2, 3, 5.2): for each source commit and service account
 * there is one Revision; the Application points at the one to deploy. Reads as its states:
 * load → service account → notification sinks → source → rollback → Revision → status → history; the
 * steps are modules of application/ over one ApplicationContext.
 *
 * Without a service account (the Application's or the manager's --default-service-account) nothing is
 * read or changed: Ready False, ServiceAccountRequired. Without a fetched commit: Ready False,
 * SourceNotReady. The service account is part of the Revision's identity, so switching it starts a fresh
 * Revision. Readiness otherwise follows the desired Revision (its reconciler reports it). A rollback
 * (application/rollback.ts) holds until the source moves to a new commit. A suspended Application is not
 * reconciled at all: nothing changes, so nothing is recorded.
 */
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { ROLLBACK_REQUESTED_AT, ROLLBACK_REQUESTED_BY } from "../api/mod.ts";
import {
  type ApplicationContext,
  type ApplicationReconcilerOptions,
  ready,
  readyNow,
  revisionNamed,
  supersede,
  writeStatus,
} from "./application/context.ts";
import { sinksChecked } from "./application/notifications.ts";
import { createRevision, keepHistory, revisionName } from "./application/revisions.ts";
import { rollBack } from "./application/rollback.ts";

export type { ApplicationReconcilerOptions } from "./application/context.ts";

const NO_SERVICE_ACCOUNT =
  "set spec.serviceAccountName, or start the manager with --default-service-account; " +
  "nothing is read or applied without one";

export function applicationReconciler(o: ApplicationReconcilerOptions) {
  const now = o.now ?? (() => new Date());

  return async function reconcile(key: string): Promise<ReconcileResult> {
    // Load.
    const app = o.getApplication(key);
    if (!app || app.spec.suspend) return {};
    const c: ApplicationContext = { o, now, app, ns: app.metadata!.namespace! };

    // Service account: without one, nothing is read or changed.
    const serviceAccount = app.spec.serviceAccountName || o.defaultServiceAccount;
    if (!serviceAccount) {
      await ready(c, "False", "ServiceAccountRequired", NO_SERVICE_ACCOUNT);
      return {};
    }

    // Notification sinks: a change of NotificationsReady is written, then continued with a fresh copy.
    if (await sinksChecked(c)) return { requeueAfterMs: 10 };

    // Source.
    const repository = `${c.ns}/${app.spec.source.repositoryRef.name}`;
    const commit = o.getRepository(repository)?.status?.artifact?.revision;
    if (!commit) {
      await ready(c, "False", "SourceNotReady", `Repository ${repository} has no fetched commit yet`);
      return { requeueAfterMs: 5_000 };
    }

    // Rollback: a new request picks the target and points the Application at it.
    const annotations = app.metadata?.annotations ?? {};
    const requestedAt = annotations[ROLLBACK_REQUESTED_AT];
    if (requestedAt && requestedAt !== app.status?.rollback?.requestedAt) {
      return await rollBack(c, requestedAt, annotations[ROLLBACK_REQUESTED_BY], commit);
    }
    // Ready gave a reason of this reconciler's own (no commit, no service account) that holds no more:
    // it follows the desired Revision again.
    const readyReason = app.status?.conditions?.find((x) => x.type === "Ready")?.reason;
    const staleReady = readyReason === "SourceNotReady" || readyReason === "ServiceAccountRequired";
    // A rollback holds until the source moves on to a new commit.
    if (app.status?.rollback?.revision && app.status.rollback.sourceRevision === commit) {
      if (staleReady) await writeStatus(c, { conditions: readyNow(c, app.status.rollback.revision) });
      return await keepHistory(c);
    }

    // Revision: one per commit, service account and source; created once, owned by the Application.
    // The Application is reconciled on each of its own status writes: the cache answers "exists" then.
    const name = revisionName(app, commit, serviceAccount);
    if (!revisionNamed(c, name)) await createRevision(c, name, commit, serviceAccount);

    // Status: which Revision to deploy. Readiness follows the Revision (its reconciler reports it).
    if (app.status?.desiredRevision !== name || app.status?.sourceRevision !== commit || staleReady) {
      await writeStatus(c, {
        desiredRevision: name,
        sourceRevision: commit,
        // Conditions only when they change: the list goes whole, and a cached one may be behind.
        ...(staleReady ? { conditions: readyNow(c, name) } : {}),
      });
      await supersede(c, name);
    }
    return await keepHistory(c, name);
  };
}
