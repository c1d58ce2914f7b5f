/**
 * The files of a Repository's commit for the renderers, without going to the network when the
 * Repository reconciler has already fetched that commit into the bare cache: planning and every
 * rollout step read the same commit again, and a thousand Applications on one repository share it
 * (across Repositories of the same URL too).
 * Recent trees stay in memory (bounded); concurrent reads of one commit share one checkout.
 */
import { cacheDir, checkout, fetchGit, type FetchGitOptions } from "./git_source.ts";

export interface CommitTreesOptions {
  /** Trees kept in memory; default 32. */
  maxTrees?: number;
}

export type CommitTree = ReadonlyMap<string, Uint8Array>;

export class CommitTrees {
  private readonly trees = new Map<string, Promise<CommitTree>>();
  private readonly maxTrees: number;

  constructor(options: CommitTreesOptions = {}) {
    this.maxTrees = options.maxTrees ?? 32;
  }

  /** The tree of `commit`; fetched (with `source`'s URL, credentials and cache) only when the cache lacks it. */
  get(source: Omit<FetchGitOptions, "revision">, commit: string, revision: string): Promise<CommitTree> {
    const gitdir = cacheDir({ ...source, revision });
    // A commit's content is its SHA's: Repositories on one URL share the tree. Each still fetched the
    // commit with its own credentials before asking for it (the commit comes from its own status).
    const key = `${source.url}@${commit}`;
    let tree = this.trees.get(key);
    if (tree) {
      // Most recently used last, so the oldest is evicted first.
      this.trees.delete(key);
      this.trees.set(key, tree);
      return tree;
    }
    tree = (async () => {
      try {
        return await checkout({ commit, gitdir, bytes: 0 });
      } catch {
        // Not in the cache yet (or the cache was pruned): fetch, then read it.
        const fetched = await fetchGit({ ...source, revision });
        return await checkout({ ...fetched, commit });
      }
    })();
    this.trees.set(key, tree);
    tree.catch(() => this.trees.delete(key));
    while (this.trees.size > this.maxTrees) this.trees.delete(this.trees.keys().next().value!);
    return tree;
  }
}
