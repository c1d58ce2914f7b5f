/**
 * Makes the cluster's discovered Applications match what the `.gitsync.yaml` files declare: each declared
 * Application applied with Server-Side Apply (field manager gitsync-discovery; labelled with its
 * Repository, annotated with its file, owned by the Repository so that deleting the Repository removes
 * them), each previously discovered one no longer declared deleted — its workloads kept unless the
 * Repository's policy allows deleting them. An Application of the same name that this Repository did not
 * discover is never taken over.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { type DiscoveredApplication, DiscoveryRefused } from "./discover.ts";
import {
  API_VERSION,
  type Application,
  DISCOVERED_FROM_ANNOTATION,
  type Repository,
  REPOSITORY_LABEL,
} from "../api/mod.ts";

export const DISCOVERY_FIELD_MANAGER = "gitsync-discovery";

export interface DiscoverySync {
  created: string[];
  updated: string[];
  deleted: string[];
}

export interface SyncDiscoveredOptions {
  client: KubeClient;
  repo: Repository;
  apps: DiscoveredApplication[];
  /** Every Application of the Repository's namespace (from the informer's cache). */
  existing: Application[];
  /** Deletes what a removed Application manages (called only when the policy allows it). */
  deleteManaged: (app: Application) => Promise<void>;
}

export async function syncDiscovered(o: SyncDiscoveredOptions): Promise<DiscoverySync> {
  const ns = o.repo.metadata!.namespace!;
  const repoName = o.repo.metadata!.name!;
  const ours = (a: Application) => a.metadata?.labels?.[REPOSITORY_LABEL] === repoName;
  const byName = new Map(o.existing.map((a) => [a.metadata!.name!, a]));
  for (const app of o.apps) {
    const current = byName.get(app.name);
    if (current && !ours(current)) {
      throw new DiscoveryRefused(
        "InvalidConfig",
        `${app.file}: Application ${app.name} already exists and was not discovered from Repository ${repoName}`,
      );
    }
  }
  const result: DiscoverySync = { created: [], updated: [], deleted: [] };
  for (const app of o.apps) {
    const current = byName.get(app.name);
    // Every poll of the Repository comes here: an Application already as declared is not applied again.
    if (current && upToDate(current, app, o.repo)) continue;
    const applied = await o.client.request<Application>({
      method: "PATCH",
      path: `/apis/${API_VERSION}/namespaces/${ns}/applications/${app.name}`,
      query: { fieldManager: DISCOVERY_FIELD_MANAGER, force: "true" },
      contentType: "application/apply-patch+yaml",
      body: {
        apiVersion: API_VERSION,
        kind: "Application",
        metadata: {
          name: app.name,
          namespace: ns,
          labels: { [REPOSITORY_LABEL]: repoName },
          annotations: { [DISCOVERED_FROM_ANNOTATION]: app.file },
          ownerReferences: [{
            apiVersion: API_VERSION,
            kind: "Repository",
            name: repoName,
            uid: o.repo.metadata!.uid!,
            controller: true,
          }],
        },
        spec: app.spec,
      },
    });
    if (!current) result.created.push(app.name);
    else if (applied.metadata?.generation !== current.metadata?.generation) result.updated.push(app.name);
  }
  const declared = new Set(o.apps.map((a) => a.name));
  for (const app of o.existing.filter((a) => ours(a) && !declared.has(a.metadata!.name!))) {
    if (o.repo.spec.applicationPolicy?.allowDeleteManagedResources) await o.deleteManaged(app);
    await o.client.request({
      method: "DELETE",
      path: `/apis/${API_VERSION}/namespaces/${ns}/applications/${app.metadata!.name}`,
    }).catch((err: { status?: number }) => {
      if (err.status !== 404) throw err;
    });
    result.deleted.push(app.metadata!.name!);
  }
  return result;
}

/** Whether `current` already carries what discovery would apply (the server may add defaults around it). */
function upToDate(current: Application, app: DiscoveredApplication, repo: Repository): boolean {
  const m = current.metadata ?? {};
  return m.annotations?.[DISCOVERED_FROM_ANNOTATION] === app.file &&
    (m.ownerReferences ?? []).some((r) => r.uid === repo.metadata!.uid && r.controller === true) &&
    contains(current.spec, app.spec);
}

/** Whether every field of `want` is in `have` with the same value (lists compared whole). */
function contains(have: unknown, want: unknown): boolean {
  if (want === null || typeof want !== "object" || Array.isArray(want)) {
    return JSON.stringify(have) === JSON.stringify(want);
  }
  if (have === null || typeof have !== "object" || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => contains((have as Record<string, unknown>)[k], v));
}
