/**
 * The Application's Revisions: one per source commit, service account and source spec, created once and
 * owned by the Application; beyond spec.history.limit (default 10) the oldest are deleted, never the
 * desired, deployed or rollback one.
 */
import { createHash } from "node:crypto";
import { isKubeApiError } from "../../../../internal/k8s/errors.ts";
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { API_VERSION, type Application, APPLICATION_LABEL, DEFAULT_HISTORY_LIMIT } from "../../api/mod.ts";
import { collectionPath, ifNotFound, objectPath } from "../../client/mod.ts";
import type { ApplicationContext } from "./context.ts";

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

/** Creates the Revision (an existing one, 409, is fine: the cache had not seen it yet). */
export async function createRevision(
  c: ApplicationContext,
  name: string,
  commit: string,
  serviceAccount: string,
) {
  const { app } = c;
  try {
    await c.o.client.request({
      method: "POST",
      path: collectionPath("revisions", c.ns),
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
    await c.o.events.normal(
      app,
      "RevisionCreated",
      `Revision ${name} for commit ${commit.slice(0, 12)} as ${serviceAccount}`,
    );
  } catch (err) {
    if (!isKubeApiError(err, 409)) throw err;
  }
}

/** Deletes the oldest Revisions beyond spec.history.limit; never the desired, deployed or rollback one. */
export async function keepHistory(
  c: ApplicationContext,
  desired = c.app.status?.desiredRevision,
): Promise<ReconcileResult> {
  const { app, ns, o } = c;
  const limit = app.spec.history?.limit ?? DEFAULT_HISTORY_LIMIT;
  const keep = new Set([desired, app.status?.deployedRevision, app.status?.rollback?.revision]);
  const revisions = o.listRevisions(ns, app.metadata!.name!)
    .sort((a, b) => (b.metadata!.creationTimestamp ?? "").localeCompare(a.metadata!.creationTimestamp ?? ""));
  const excess = revisions.length - limit;
  if (excess <= 0) return {};
  const oldestFirst = [...revisions].reverse().filter((r) => !keep.has(r.metadata!.name));
  for (const r of oldestFirst.slice(0, excess)) {
    const path = objectPath("revisions", ns, r.metadata!.name!);
    await ifNotFound(o.client.request({ method: "DELETE", path }), () => undefined);
  }
  return {};
}
