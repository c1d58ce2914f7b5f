/**
 * Image write-back (seed section 2, Repository spec.imageUpdate): fetch the write-back branch, rewrite
 * the `$imagepolicy` markers of the YAML files under spec.imageUpdate.path, and push one commit when
 * anything changed. The commit is built object by object in the bare cache (blobs, then each tree
 * on the way up to the root, then the commit on top of the fetched head), so there is no work tree
 * to keep clean and every untouched file keeps its object. A push that races another one is refused
 * by the server as non-fast-forward and retried on the next scan from the new head.
 *
 * Pushes go over https and http (isomorphic-git's smart-HTTP receive-pack); ssh and git:// remotes
 * are refused with a clear message (git:// has no authenticated push at all).
 */
import * as fs from "node:fs";
import git from "isomorphic-git";
import { cappedHttp } from "../source/git/capped_http.ts";
import { fetchGit, type GitCredentials, GitSourceError } from "../source/git/git_source.ts";
import { parseRemoteUrl } from "../source/git/remote_url.ts";
import { redact } from "../redact.ts";
import { applyMarkers, type LatestImage, type MarkerChange } from "./markers.ts";

export interface WriteBackOptions {
  url: string;
  branch: string;
  /** Folder whose YAML files are updated ("" or "." for the whole repository). */
  path?: string;
  credentials?: GitCredentials;
  cacheRoot: string;
  /** namespace/name of the Repository. */
  cacheKey: string;
  /** The Repository's namespace: markers may only name its ImagePolicies. */
  namespace: string;
  /** The latest image of an ImagePolicy of that namespace, by name. */
  latest: (name: string) => LatestImage | undefined;
  now?: () => Date;
}

export interface WriteBackResult {
  /** The head of the branch after the write-back (the pushed commit when one was pushed). */
  commit: string;
  pushed: boolean;
  changes: (MarkerChange & { file: string })[];
}

export class WriteBackError extends Error {
  override name = "WriteBackError";
  constructor(message: string, readonly reason: "AuthenticationFailure" | "PushFailed" | "SourceFailure") {
    super(message);
  }
}

const AUTHOR = { name: "gitsync", email: "gitsync@users.noreply.gitsync.io" };

function underPath(file: string, folder: string): boolean {
  return folder === "" || file === folder || file.startsWith(`${folder}/`);
}

export async function writeBack(o: WriteBackOptions): Promise<WriteBackResult> {
  const remote = parseRemoteUrl(o.url);
  if (remote.transport !== "https" && remote.transport !== "http") {
    throw new WriteBackError(
      `image write-back pushes over https or http only; ${redact(remote.url)} is ${remote.transport}`,
      "PushFailed",
    );
  }
  const folder = (o.path ?? "").replace(/^\.?\/+|\/+$/g, "").replace(/^\.$/, "");
  // A cache of its own: the write-back branch may differ from the one the Repository follows.
  let fetched;
  try {
    fetched = await fetchGit({
      url: o.url,
      revision: o.branch,
      ...(o.credentials ? { credentials: o.credentials } : {}),
      cacheRoot: o.cacheRoot,
      cacheKey: `${o.cacheKey}#image-update`,
    });
  } catch (err) {
    if (err instanceof GitSourceError) {
      throw new WriteBackError(
        err.message,
        err.reason === "AuthenticationFailure" ? err.reason : "SourceFailure",
      );
    }
    throw err;
  }
  const { gitdir, commit: head } = fetched;
  const cache = {};
  const changes: WriteBackResult["changes"] = [];

  // Rewrites the markers in the YAML blobs of one tree and, bottom-up, the trees that hold them.
  const rewrite = async (treeOid: string, prefix: string): Promise<string> => {
    const { tree } = await git.readTree({ fs, gitdir, oid: treeOid, cache });
    let changed = false;
    const entries = [];
    for (const entry of tree) {
      const path = prefix ? `${prefix}/${entry.path}` : entry.path;
      let oid = entry.oid;
      if (entry.type === "tree" && (underPath(path, folder) || folder.startsWith(`${path}/`))) {
        oid = await rewrite(entry.oid, path);
      } else if (
        entry.type === "blob" && entry.mode !== "120000" && /\.ya?ml$/.test(path) && underPath(path, folder)
      ) {
        const { blob } = await git.readBlob({ fs, gitdir, oid: entry.oid, cache });
        const text = new TextDecoder().decode(blob);
        const r = applyMarkers(text, o.namespace, o.latest);
        if (r.changes.length) {
          oid = await git.writeBlob({ fs, gitdir, blob: new TextEncoder().encode(r.text) });
          changes.push(...r.changes.map((c) => ({ ...c, file: path })));
        }
      }
      if (oid !== entry.oid) changed = true;
      entries.push({ ...entry, oid });
    }
    return changed ? await git.writeTree({ fs, gitdir, tree: entries }) : treeOid;
  };
  const { commit } = await git.readCommit({ fs, gitdir, oid: head, cache });
  const tree = await rewrite(commit.tree, "");
  if (tree === commit.tree) return { commit: head, pushed: false, changes };

  const when = {
    ...AUTHOR,
    timestamp: Math.floor((o.now?.() ?? new Date()).getTime() / 1000),
    timezoneOffset: 0,
  };
  const policies = [...new Set(changes.map((c) => c.policy))].sort();
  const message = [
    `gitsync: update images from ${policies.join(", ")}`,
    "",
    ...changes.map((c) => `${c.file}:${c.line}: ${c.from} -> ${c.to}`),
    "",
  ].join("\n");
  const pushedCommit = await git.writeCommit({
    fs,
    gitdir,
    commit: { message, tree, parent: [head], author: when, committer: when },
  });
  const localRef = "refs/gitsync/image-update";
  await git.writeRef({ fs, gitdir, ref: localRef, value: pushedCommit, force: true });

  let authFailed = false;
  const c = o.credentials;
  try {
    const result = await git.push({
      fs,
      http: cappedHttp(),
      gitdir,
      url: remote.url,
      ref: localRef,
      remoteRef: `refs/heads/${o.branch}`,
      headers: c?.bearerToken ? { Authorization: `Bearer ${c.bearerToken}` } : {},
      onAuth: () =>
        c?.username || c?.password
          ? { username: c.username ?? "git", password: c.password ?? "" }
          : { cancel: true },
      onAuthFailure: () => {
        authFailed = true;
        return { cancel: true };
      },
    });
    const refResult = result.refs?.[`refs/heads/${o.branch}`];
    if (!result.ok || (refResult && !refResult.ok)) {
      throw new Error(refResult?.error ?? result.error ?? "the server refused the push");
    }
  } catch (err) {
    const where = redact(remote.url);
    if (authFailed || /HTTP Error: 40[13]/.test((err as Error).message)) {
      throw new WriteBackError(
        `${where} refused the push credentials (spec.imageUpdate.secretRef)`,
        "AuthenticationFailure",
      );
    }
    throw new WriteBackError(
      `pushing to ${o.branch} of ${where} failed: ${redact((err as Error).message)}`,
      "PushFailed",
    );
  }
  // The cache's branch now points at what was pushed, so the next fetch is incremental from it.
  await git.writeRef({ fs, gitdir, ref: `refs/remotes/origin/${o.branch}`, value: pushedCommit, force: true })
    .catch(() => {});
  return { commit: pushedCommit, pushed: true, changes };
}
