/**
 * Git sources over https and http (seed sections 2, 5.3, 5.8, 8; notes section 9): one bare clone
 * per URL, revision and credentials under the source cache, fetched shallow (depth 1, one branch, no
 * tags) and then incrementally (a later fetch sends what the cache has and receives only what is
 * new), and a checkout of one commit as an in-memory tree for the renderers, refused when a symlink
 * resolves outside the checkout. Credentials come from the caller (a labelled Secret, read uncached)
 * and never reach messages. ssh:// and git:// are separate transports.
 *
 * Repositories that follow the same URL and revision with the same credentials share one clone: the
 * objects are the server's for anyone holding those credentials, and ten namespaces of one
 * repository then fetch and index its pack once, not ten times (the 1,000-Application benchmark).
 * A clone with different credentials is never shared. Fetches and checkouts of one clone take turns.
 *
 * @example
 * const fetched = await fetchGit({ url, revision: "main", cacheRoot, credentials });
 * const tree = await checkout(fetched);            // Map of path -> bytes
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { markUsed } from "../cache_prune.ts";
import { followLinks } from "../tree.ts";
import git from "isomorphic-git";
import { readOnlyCloneFs } from "./clone_fs.ts";
import { openGitDaemon } from "./git_protocol.ts";
import { uploadPackClient } from "./upload_pack_stream.ts";
import { cappedHttp, type CappedHttpOptions } from "./capped_http.ts";
import { parseRemoteUrl, type RemoteUrl } from "./remote_url.ts";
import { HostKeyRefused, openSsh, SshAuthFailed } from "./ssh_transport.ts";
import { redact } from "../../redact.ts";
import { Mutex } from "../../../../internal/db/mutex.ts";

export interface GitCredentials {
  username?: string;
  /** HTTP basic password; for ssh, the identity's passphrase (or the password without an identity). */
  password?: string;
  /** Sent as Authorization: Bearer (Git hosts that take tokens that way). */
  bearerToken?: string;
  /** ssh: the private key (OpenSSH or PEM). */
  identity?: string;
  /** ssh: the server's host keys, OpenSSH known_hosts format; required for ssh. */
  knownHosts?: string;
}

export interface FetchGitOptions {
  url: string;
  /** Branch, tag or full commit SHA. */
  revision: string;
  credentials?: GitCredentials;
  /** The source cache root (default /tmp/gitsync-source-cache in the manager). */
  cacheRoot: string;
  /**
   * A private clone's name, for callers that write objects of their own (image write-back); without
   * one, the clone is shared by every fetch of the same URL, revision and credentials.
   */
  cacheKey?: string;
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

/** The bare clone's folder: one per URL, revision, credentials and private name (if any). */
export function cacheDir(
  o: Pick<FetchGitOptions, "cacheRoot" | "cacheKey" | "url" | "revision" | "credentials">,
): string {
  const id = createHash("sha256")
    .update(o.cacheKey ?? "").update("\0").update(o.url).update("\0").update(o.revision).update("\0")
    .update(JSON.stringify(o.credentials ?? {}))
    .digest("hex").slice(0, 32);
  return join(o.cacheRoot, "git", id);
}

const clones = new Map<string, { mutex: Mutex; users: number }>();

/** Runs `f` while holding the clone at `gitdir`: a fetch never writes under a concurrent fetch or read. */
async function withClone<T>(gitdir: string, f: () => Promise<T>): Promise<T> {
  let clone = clones.get(gitdir);
  if (!clone) clones.set(gitdir, clone = { mutex: new Mutex(), users: 0 });
  clone.users++;
  const release = await clone.mutex.lock();
  try {
    return await f();
  } finally {
    release();
    if (--clone.users === 0) clones.delete(gitdir);
  }
}

/**
 * The HTTP client isomorphic-git is handed, and the URL it is told. git:// and ssh go through the same
 * fetch logic as HTTP: their clients answer isomorphic-git's two smart-HTTP requests over one stateful
 * connection (upload_pack_stream.ts), so isomorphic-git gets an http:// URL it never dials.
 */
function transport(remote: RemoteUrl, credentials: GitCredentials | undefined, limits: CappedHttpOptions) {
  if (remote.transport === "https" || remote.transport === "http") {
    return { http: cappedHttp(limits), url: remote.url };
  }
  const u = new URL(remote.url);
  const port = Number(u.port || (remote.transport === "git" ? 9418 : 22));
  const open = remote.transport === "git"
    ? openGitDaemon({ host: u.hostname, port, path: remote.serverPath })
    : openSsh({
      host: u.hostname,
      port,
      username: decodeURIComponent(u.username) || credentials?.username || "git",
      path: remote.serverPath,
      knownHosts: credentials!.knownHosts!,
      ...(credentials?.identity ? { privateKey: credentials.identity } : {}),
      ...(credentials?.password ? { password: credentials.password } : {}),
    });
  return { http: uploadPackClient({ open, ...limits }), url: `http://${u.hostname}:${port}/${remote.path}` };
}

export function fetchGit(o: FetchGitOptions): Promise<FetchedCommit> {
  const gitdir = cacheDir(o);
  return withClone(gitdir, () => fetchInto(gitdir, o));
}

async function fetchInto(gitdir: string, o: FetchGitOptions): Promise<FetchedCommit> {
  const remote = parseRemoteUrl(o.url);
  if (remote.transport === "ssh" && !o.credentials?.knownHosts) {
    throw new GitSourceError(
      `${
        redact(remote.url)
      }: ssh needs the server's host key in the credentials Secret (key known_hosts, spec.git.auth)`,
      "AuthenticationFailure",
    );
  }
  await mkdir(gitdir, { recursive: true });
  await markUsed(gitdir);
  if (!fs.existsSync(join(gitdir, "HEAD"))) {
    await git.init({ fs, gitdir, bare: true, defaultBranch: "main" });
    await git.addRemote({ fs, gitdir, remote: "origin", url: remote.url });
  }
  let bytes = 0;
  const limits = {
    ...(o.maxPackBytes ? { maxBytes: o.maxPackBytes } : {}),
    onBytes: (n: number) => (bytes += n),
  };
  const { http, url } = transport(remote, o.credentials, limits);
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
    // A poll that finds the branch where the clone has it costs one ref advertisement, not a fetch.
    if (remote.transport === "https" || remote.transport === "http") {
      const advertised = await git.listServerRefs({
        http,
        url,
        headers,
        ...auth,
        protocolVersion: 1,
        prefix: `refs/heads/${o.revision}`,
      });
      const head = advertised.find((r) => r.ref === `refs/heads/${o.revision}`)?.oid;
      if (head && await hasCommit(gitdir, head)) return { commit: head, gitdir, bytes };
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
    if (err instanceof HostKeyRefused || err instanceof SshAuthFailed) {
      throw new GitSourceError(err.message, "AuthenticationFailure");
    }
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

async function hasCommit(gitdir: string, oid: string): Promise<boolean> {
  return await git.readCommit({ fs, gitdir, oid }).then(() => true, () => false);
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
export function checkout(f: FetchedCommit, limits: CheckoutLimits = {}): Promise<Map<string, Uint8Array>> {
  return withClone(f.gitdir, () => readCommitFiles(f, limits));
}

async function readCommitFiles(f: FetchedCommit, limits: CheckoutLimits): Promise<Map<string, Uint8Array>> {
  const maxFiles = limits.maxFiles ?? 20_000;
  const maxBytes = limits.maxBytes ?? 256 * 1024 * 1024;
  await markUsed(f.gitdir);
  const files = new Map<string, Uint8Array>();
  const links = new Map<string, string>();
  let total = 0;
  // isomorphic-git re-reads pack indexes on every call without a shared cache object.
  const cache = {};
  const cloneFs = readOnlyCloneFs(f.gitdir);
  const { commit } = await git.readCommit({ fs: cloneFs, gitdir: f.gitdir, oid: f.commit, cache });
  const walk = async (treeOid: string, prefix: string) => {
    const { tree } = await git.readTree({ fs: cloneFs, gitdir: f.gitdir, oid: treeOid, cache });
    for (const entry of tree) {
      const path = prefix ? `${prefix}/${entry.path}` : entry.path;
      if (entry.type === "tree") {
        await walk(entry.oid, path);
        continue;
      }
      if (entry.type !== "blob") continue; // submodules are not followed
      const { blob } = await git.readBlob({ fs: cloneFs, gitdir: f.gitdir, oid: entry.oid, cache });
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
