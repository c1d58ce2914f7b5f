/**
 * What the reconcilers render from: the files of a commit, from the Repository's bare cache (fetched
 * again only when it lacks the commit; old clones pruned on a schedule), the renderers (Kustomize and
 * Helm, each in its own worker), chart repositories and the cluster's version for Helm.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { Repository } from "../api/mod.ts";
import { readGitCredentials } from "../source/git/credentials.ts";
import { clusterVersion } from "../render/cluster_version.ts";
import { Helm } from "../render/helm.ts";
import { Kustomize } from "../render/kustomize.ts";
import { schedulePrune } from "../source/cache_prune.ts";
import { CommitTrees } from "../source/git/commit_trees.ts";
import { ChartSource } from "../source/helm/chart_source.ts";

export interface Sources {
  /** The files of a Repository's commit. */
  source: (namespace: string, repository: string, commit: string) => Promise<ReadonlyMap<string, Uint8Array>>;
  renderers: { kustomize: Kustomize; helm: Helm };
  charts: ChartSource;
  kubeVersion: () => Promise<string | undefined>;
  /** Stops the renderers' workers. */
  close(): void;
}

export function startSources(
  o: { client: KubeClient; log: Logger; cacheRoot: string },
  repository: (key: string) => Repository | undefined,
  signal: AbortSignal,
): Sources {
  const { log } = o;
  const trees = new CommitTrees();
  schedulePrune(o.cacheRoot, signal, (removed, err) => {
    if (err) log.warn("source cache prune failed", { error: err.message });
    else if (removed.length) log.info("source cache pruned", { clones: removed.length });
  });
  const renderers = {
    kustomize: new Kustomize({ warn: (message, path) => log.warn("kustomize", { path, message }) }),
    helm: new Helm(),
  };
  return {
    source: async (ns, name, commit) => {
      const r = repository(`${ns}/${name}`);
      if (!r) throw new Error(`Repository ${ns}/${name} does not exist`);
      const fetch = {
        url: r.spec.git.url,
        credentials: await readGitCredentials(o.client, r),
        cacheRoot: o.cacheRoot,
      };
      return await trees.get(fetch, commit, r.spec.git.revision ?? "main");
    },
    renderers,
    charts: new ChartSource(),
    kubeVersion: clusterVersion(o.client),
    close() {
      renderers.kustomize.close();
      renderers.helm.close();
    },
  };
}
