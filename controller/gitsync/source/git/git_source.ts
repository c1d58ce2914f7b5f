/**
 * Git sources over https and http (seed sections 2, 5.3, 5.8, 8; notes section 9): one bare clone
 * per Repository and credentials under the source cache, fetched shallow (depth 1, one branch, no
 * tags) and then incrementally (a later fetch sends what the cache has and receives only what is
 * new), and a checkout of one commit as an in-memory tree for the renderers, refused when a symlink
 * resolves outside the checkout. Credentials come from the caller (a labelled Secret, read uncached)
 * and never reach messages. ssh:// and git:// are separate transports.
 *
 * @example
 * const fetched = await fetchGit({ url, revision: "main", cacheRoot, cacheKey: "team/web", credentials });
 * const tree = await checkout(fetched);            // Map of path -> bytes
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { followLinks } from "../tree.ts";
import git from "isomorphic-git";
import { gitProtocolClient } from "./git_protocol.ts";
import { cappedHttp } from "./capped_http.ts";
import { parseRemoteUrl } from "./remote_url.ts";
import { redact } from "../../redact.ts";

export interface GitCredentials {
  username?: string;
  password?: string;
  /** Sent as Authorization: Bearer (Git hosts that take tokens that way). */
  bearerToken?: string;
}

export interface FetchGitOptions {
  url: string;
  /** Branch, tag or full commit SHA. */
  revision: string;
  credentials?: GitCredentials;
  /** The source cache root (default /tmp/gitsync-source-cache in the manager). */
  cacheRoot: string;
  /** namespace/name of the Repository: part of the cache identity. */
  cacheKey: string;
  /** Most bytes one fetch response may carry. */
  maxPackBytes?: number;
}

export interface FetchedCommit {
  commit: string;
  gitdir: string;
  /** Bytes received from the server by this fetch. */
  bytes: number;
}

export class GitSourceError extends Error {
  override name = "GitSourceError";
  constructor(message: string, readonly reason: "SourceFailure" | "AuthenticationFailure") {
    super(message);
  }
}

const SHA = /^[0-9a-f]{40}$/;

/** The bare clone's folder: one per Repository, URL and credentials (never shared across Secrets). */
export function cacheDir(o: Pick<FetchGitOptions, "cacheRoot" | "cacheKey" | "url" | "credentials">): string {
  const id = createHash("sha256")
    .update(o.cacheKey).update("\0").update(o.url).update("\0")
    .update(JSON.stringify(o.credentials ?? {}))
    .digest("hex").slice(0, 32);
  return join(o.cacheRoot, "git", id);
}

export async function fetchGit(o: FetchGitOptions): Promise<FetchedCommit> {
  const remote = parseRemoteUrl(o.url);
  if (remote.transport === "ssh") {
    throw new GitSourceError(
      "ssh:// and scp-style URLs are not supported yet: use https or git://",
      "SourceFailure",
    );
  }
  const gitdir = cacheDir(o);
  await mkdir(gitdir, { recursive: true });
  if (!fs.existsSync(join(gitdir, "HEAD"))) {
    await git.init({ fs, gitdir, bare: true, defaultBranch: "main" });
    await git.addRemote({ fs, gitdir, remote: "origin", url: remote.url });
  }
  let bytes = 0;
  const limits = {
    ...(o.maxPackBytes ? { maxBytes: o.maxPackBytes } : {}),
    onBytes: (n: number) => (bytes += n),
  };
  // git:// goes through the same fetch logic: its client answers isomorphic-git's two smart-HTTP
  // requests over one git protocol connection, so isomorphic-git is handed an http:// URL it never dials.
  const daemon = remote.transport === "git" ? new URL(remote.url) : undefined;
  const http = daemon
    ? gitProtocolClient({
      host: daemon.hostname,
      port: Number(daemon.port || 9418),
      path: daemon.pathname,
      ...limits,
    })
    : cappedHttp(limits);
  const url = daemon ? `http://${daemon.host}${daemon.pathname}` : remote.url;
  const headers: Record<string, string> = o.credentials?.bearerToken
    ? { Authorization: `Bearer ${o.credentials.bearerToken}` }
    : {};
  let authFailed = false;
  const auth = {
    onAuth: () =>
      o.credentials?.username || o.credentials?.password
        ? { username: o.credentials.username ?? "git", password: o.credentials.password ?? "" }
        : { cancel: true },
    onAuthFailure: () => {
      authFailed = true;
      return { cancel: true };
    },
  };
  const where = redact(remote.url);
  try {
    if (SHA.test(o.revision)) {
      // A commit can only be asked for by a name the server advertises: fetch the default branch's
      // history until the commit is there.
      await git.fetch({
        fs,
        http,
        gitdir,
        url,
        singleBranch: true,
        tags: false,
        headers,
        ...auth,
      });
      await git.readCommit({ fs, gitdir, oid: o.revision }).catch(() => {
        throw new GitSourceError(
          `commit ${o.revision} is not on the default branch of ${where}`,
          "SourceFailure",
        );
      });
      return { commit: o.revision, gitdir, bytes };
    }
    // The first fetch is shallow; later ones deepen relative to what the cache has, so the server
    // answers with the new commits only (a plain depth-1 fetch would send the whole tree again).
    const cached = fs.existsSync(join(gitdir, "shallow"));
    const r = await git.fetch({
      fs,
      http,
      gitdir,
      url,
      ref: o.revision,
      singleBranch: true,
      depth: 1,
      relative: cached,
      tags: false,
      headers,
      ...auth,
    });
    if (!r.fetchHead) {
      throw new GitSourceError(`revision ${o.revision} was not found in ${where}`, "SourceFailure");
    }
    return { commit: r.fetchHead, gitdir, bytes };
  } catch (err) {
    if (err instanceof GitSourceError) throw err;
    if (authFailed || /HTTP Error: 401|HTTP Error: 403/.test((err as Error).message)) {
      throw new GitSourceError(`${where} refused the credentials (spec.git.auth)`, "AuthenticationFailure");
    }
    const e = err as { code?: string; message: string };
    if (e.code === "NotFoundError" || /Could not find/.test(e.message)) {
      throw new GitSourceError(`revision ${o.revision} was not found in ${where}`, "SourceFailure");
    }
    throw new GitSourceError(`fetching ${where} failed: ${redact(e.message)}`, "SourceFailure");
  }
}

export interface CheckoutLimits {
  /** Most files; default 20,000. */
  maxFiles?: number;
  /** Most bytes in all; default 256 MiB. */
  maxBytes?: number;
}

export class CheckoutRefused extends Error {
  override name = "CheckoutRefused";
}

/**
 * The files of a commit as path -> bytes (paths relative to the root, `/`-separated), symlinks
 * followed inside the tree. A symlink whose target leaves the checkout refuses the whole commit.
 */
export async function checkout(
  f: FetchedCommit,
  limits: CheckoutLimits = {},
): Promise<Map<string, Uint8Array>> {
  const maxFiles = limits.maxFiles ?? 20_000;
  const maxBytes = limits.maxBytes ?? 256 * 1024 * 1024;
  const files = new Map<string, Uint8Array>();
  const links = new Map<string, string>();
  let total = 0;
  // isomorphic-git re-reads pack indexes on every call without a shared cache object.
  const cache = {};
  const { commit } = await git.readCommit({ fs, gitdir: f.gitdir, oid: f.commit, cache });
  const walk = async (treeOid: string, prefix: string) => {
    const { tree } = await git.readTree({ fs, gitdir: f.gitdir, oid: treeOid, cache });
    for (const entry of tree) {
      const path = prefix ? `${prefix}/${entry.path}` : entry.path;
      if (entry.type === "tree") {
        await walk(entry.oid, path);
        continue;
      }
      if (entry.type !== "blob") continue; // submodules are not followed
      const { blob } = await git.readBlob({ fs, gitdir: f.gitdir, oid: entry.oid, cache });
      total += blob.length;
      if (files.size + links.size >= maxFiles || total > maxBytes) {
        throw new CheckoutRefused(
          `commit ${f.commit} is larger than the checkout limits (${maxFiles} files, ${maxBytes} bytes)`,
        );
      }
      if (entry.mode === "120000") links.set(path, new TextDecoder().decode(blob));
      else files.set(path, blob);
    }
  };
  await walk(commit.tree, "");
  return followLinks(
    files,
    links,
    (path, target) =>
      new CheckoutRefused(
        `commit ${f.commit} refused: symlink ${path} -> ${target} resolves outside the checkout`,
      ),
  );
}
