/**
 * The Repository reconciler's discovery step: reads the fetched commit's `.gitsync.yaml` files, checks
 * them against the Repository's policy, syncs the discovered Applications, and reports the outcome as the
 * Repository's `Discovered` condition (Events Discovered and DiscoveryFailed on changes).
 */
import {
  deleteObject,
  discoveryFor,
  type EventRecorder,
  type KubeClient,
} from "../../../internal/k8s/mod.ts";
import { listManaged } from "../rollout/inventory.ts";
import { planPrune } from "../rollout/prune.ts";
import type { FetchedCommit } from "../source/git/git_source.ts";
import type { Tree } from "../source/tree.ts";
import { applyPolicy, configPaths, DiscoveryRefused, readConfigs } from "./discover.ts";
import { syncDiscovered } from "./sync_discovered.ts";
import {
  API_VERSION,
  type Application,
  type Condition,
  type Repository,
  REPOSITORY_LABEL,
} from "../api/mod.ts";
import { ifNotFound } from "../client/mod.ts";

export interface DiscovererOptions {
  client: KubeClient;
  /** The Applications of a namespace, from the informer's cache. */
  applications: (namespace: string) => Application[];
  /** The files of a Repository's commit (from the source cache). */
  tree: (repo: Repository, commit: string) => Promise<Tree>;
  events: EventRecorder;
  redact: (text: string) => string;
  /** Service account for Applications that set none (--default-service-account). */
  defaultServiceAccount?: string;
}

export function discoverer(o: DiscovererOptions) {
  /** What a removed Application manages, deleted as its service account (high-risk kinds kept). */
  async function deleteManaged(app: Application) {
    const ns = app.metadata!.namespace!;
    const account = app.spec.serviceAccountName ?? o.defaultServiceAccount;
    if (!account) return;
    const sa = o.client.impersonating({ user: `system:serviceaccount:${ns}:${account}` });
    try {
      for (const obj of planPrune(await listManaged(sa, app), []).delete) {
        const res = await discoveryFor(sa).forKind(obj.apiVersion ?? "", obj.kind ?? "");
        const deleting = deleteObject(sa, res, obj.metadata!.name!, {
          namespace: obj.metadata?.namespace,
          propagationPolicy: "Background",
        });
        await ifNotFound(deleting, () => undefined);
      }
    } finally {
      sa.close();
    }
  }

  return async function discover(repo: Repository, fetched: FetchedCommit): Promise<Condition | undefined> {
    const ns = repo.metadata!.namespace!;
    const name = repo.metadata!.name!;
    const object = { ...repo, apiVersion: API_VERSION, kind: "Repository" };
    const existing = o.applications(ns);
    const previously = existing.filter((a) => a.metadata?.labels?.[REPOSITORY_LABEL] === name);
    const previous = repo.status?.conditions?.find((c) => c.type === "Discovered");
    try {
      const declared = applyPolicy(repo, readConfigs(await o.tree(repo, fetched.commit), configPaths(repo)));
      // A Repository that declares nothing, never did and names no config paths has nothing to report.
      if (!declared.length && !previously.length && !repo.spec.applicationConfigPaths?.length && !previous) {
        return undefined;
      }
      const r = await syncDiscovered({ client: o.client, repo, apps: declared, existing, deleteManaged });
      const changes = [
        r.created.length ? `created ${r.created.join(", ")}` : "",
        r.updated.length ? `updated ${r.updated.join(", ")}` : "",
        r.deleted.length ? `deleted ${r.deleted.join(", ")}` : "",
      ].filter(Boolean).join("; ");
      if (changes) await o.events.normal(object, "Discovered", `Applications ${changes}`);
      const files = [...new Set(declared.map((a) => a.file))];
      return {
        type: "Discovered",
        status: "True",
        reason: "Succeeded",
        message: `${declared.length} Application(s) from ${
          files.length ? files.join(", ") : "no .gitsync.yaml"
        }`,
      };
    } catch (err) {
      if (!(err instanceof DiscoveryRefused)) throw err;
      const message = o.redact(`${err.message}; nothing discovered was created, changed or deleted`);
      if (previous?.message !== message) await o.events.warning(object, "DiscoveryFailed", message);
      return { type: "Discovered", status: "False", reason: err.reason, message };
    }
  };
}
