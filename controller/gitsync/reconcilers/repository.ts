/**
 * The Repository reconciler (seed sections 2, 4, 5.3, 8): fetches the remote on its poll interval,
 * at once when the push receiver stamps `sync.gitsync.io/reconcile-requested-at`, and when the spec
 * changes; records the commit in status.artifact and the outcome in the Ready condition. Reads top to
 * bottom as its states: load → credentials → due? → fetch → record.
 *
 * Credentials come only from a Secret in the Repository's namespace labelled
 * `sync.gitsync.io/git-credentials=true`, read with an uncached get every time (seed section 5.3).
 */
import { createHash } from "node:crypto";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import {
  type FetchedCommit,
  fetchGit,
  type GitCredentials,
  GitSourceError,
} from "../source/git/git_source.ts";
import { RemoteUrlError } from "../source/git/remote_url.ts";
import type { LatestImage } from "../images/markers.ts";
import { writeBack, WriteBackError } from "../images/write_back.ts";
import {
  API_VERSION,
  type Condition,
  GIT_CREDENTIALS_LABEL,
  parseDuration,
  RECONCILE_REQUESTED_AT,
  type Repository,
} from "../api/mod.ts";
import { readLabelledSecret, secretText } from "../client/mod.ts";

export interface RepositoryReconcilerOptions {
  /** The manager's own client (not impersonated: Repositories and their Secrets are the controller's). */
  client: KubeClient;
  /** The Repository from the informer's cache. */
  get: (key: string) => Repository | undefined;
  cacheRoot: string;
  now?: () => Date;
  /** Fetches; tests may count calls. */
  fetch?: typeof fetchGit;
  /**
   * Application discovery on a fetched commit (controller/gitsync/discovery): returns the Repository's
   * `Discovered` condition, or undefined when it declares no Applications and never did.
   */
  discover?: (repo: Repository, fetched: FetchedCommit) => Promise<Condition | undefined>;
  /** The latest image of each ImagePolicy in a namespace, by name (image automation's input). */
  latestImages?: (namespace: string) => Map<string, LatestImage>;
  /** Writes image updates back; tests may count calls. */
  writeBack?: typeof writeBack;
}

export class CredentialsRefused extends Error {
  override name = "CredentialsRefused";
}

/**
 * The Git credentials of a Repository: from the Secret spec.git.auth names (or, for image write-back,
 * spec.imageUpdate), in the same namespace, only when it is labelled
 * sync.gitsync.io/git-credentials=true; read uncached every time.
 */
export async function readGitCredentials(
  client: KubeClient,
  repo: Repository,
  use: "spec.git.auth" | "spec.imageUpdate" = "spec.git.auth",
): Promise<GitCredentials | undefined> {
  const name = use === "spec.git.auth"
    ? repo.spec.git.auth?.secretRef?.name
    : repo.spec.imageUpdate?.secretRef?.name;
  if (!name) return undefined;
  const secret = await readLabelledSecret(client, {
    namespace: repo.metadata!.namespace!,
    name,
    field: `${use}.secretRef`,
    label: GIT_CREDENTIALS_LABEL,
    notUsed: "it is not used for Git credentials",
  }, (message) => new CredentialsRefused(message));
  const value = (k: string) => secretText(secret, k);
  const c: GitCredentials = {};
  const username = value("username");
  const password = value("password");
  const bearerToken = value("bearerToken");
  const identity = value("identity");
  const knownHosts = value("known_hosts");
  if (identity) c.identity = identity;
  if (knownHosts) c.knownHosts = knownHosts;
  if (username) c.username = username;
  if (password) c.password = password;
  if (bearerToken) c.bearerToken = bearerToken;
  return c;
}

/** A short fingerprint of the images a write-back would write, so a change of any policy is noticed. */
function imagesFingerprint(images: Map<string, LatestImage>): string {
  const lines = [...images].map(([name, i]) => `${name}=${i.image}:${i.tag}@${i.digest ?? ""}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

export function repositoryReconciler(o: RepositoryReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  const doFetch = o.fetch ?? fetchGit;
  const doWriteBack = o.writeBack ?? writeBack;

  async function writeStatus(repo: Repository, status: Repository["status"]): Promise<void> {
    await o.client.request({
      method: "PATCH",
      path: `/apis/${API_VERSION}/namespaces/${repo.metadata!.namespace}/repositories/${
        repo.metadata!.name
      }/status`,
      contentType: "application/merge-patch+json",
      body: { status },
    });
  }

  function ready(repo: Repository, status: "True" | "False", reason: string, message: string) {
    const previous = repo.status?.conditions?.find((c) => c.type === "Ready");
    const changed = previous?.status !== status || previous?.reason !== reason;
    return {
      type: "Ready",
      status,
      reason,
      message,
      observedGeneration: repo.metadata?.generation,
      lastTransitionTime: changed
        ? now().toISOString().replace(/\.\d{3}Z$/, "Z")
        : previous!.lastTransitionTime,
    };
  }

  /** `c` with the lastTransitionTime kept while its status and reason do not change. */
  function transitioned(repo: Repository, c: Condition): Condition {
    const previous = repo.status?.conditions?.find((x) => x.type === c.type);
    const same = previous?.status === c.status && previous?.reason === c.reason;
    return {
      ...c,
      lastTransitionTime: same && previous?.lastTransitionTime
        ? previous.lastTransitionTime
        : now().toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    // Load.
    const repo = o.get(key);
    if (!repo) return {};
    const pollMs = parseDuration(repo.spec.pollInterval ?? "5m") || 300_000;
    const requested = repo.metadata?.annotations?.[RECONCILE_REQUESTED_AT];
    const fetchedAt = repo.status?.artifact?.fetchedAt ? Date.parse(repo.status.artifact.fetchedAt) : 0;
    const images = repo.spec.imageUpdate
      ? o.latestImages?.(repo.metadata!.namespace!) ?? new Map()
      : undefined;
    const imagesSeen = images ? imagesFingerprint(images) : undefined;
    // Due? A new spec, a receiver's stamp not handled yet, the poll interval passed, or an
    // ImagePolicy found an image the last write-back did not see.
    const due = repo.status?.observedGeneration !== repo.metadata?.generation ||
      (requested !== undefined && requested !== repo.status?.lastHandledReconcileAt) ||
      now().getTime() - fetchedAt >= pollMs ||
      (imagesSeen !== undefined && imagesSeen !== repo.status?.imageUpdate?.observedImages);
    if (!due) return { requeueAfterMs: Math.max(1000, fetchedAt + pollMs - now().getTime()) };

    // Image write-back first, so the fetch below already sees what it pushed.
    let imagesUpdated: Condition = {
      type: "ImagesUpdated",
      status: "False",
      reason: "Disabled",
      message: "image write-back is off (spec.imageUpdate is not set)",
    };
    let imageUpdate = repo.status?.imageUpdate;
    if (images && repo.spec.imageUpdate) {
      const branch = repo.spec.imageUpdate.branch ?? repo.spec.git.revision ?? "main";
      try {
        const r = await doWriteBack({
          url: repo.spec.git.url,
          branch,
          ...(repo.spec.imageUpdate.path ? { path: repo.spec.imageUpdate.path } : {}),
          credentials: await readGitCredentials(o.client, repo, "spec.imageUpdate"),
          cacheRoot: o.cacheRoot,
          cacheKey: key,
          namespace: repo.metadata!.namespace!,
          latest: (name) => images.get(name),
          now,
        });
        imageUpdate = {
          ...imageUpdate,
          observedImages: imagesSeen!,
          ...(r.pushed
            ? { lastPushedCommit: r.commit, lastPushTime: now().toISOString().replace(/\.\d{3}Z$/, "Z") }
            : {}),
        };
        imagesUpdated = {
          type: "ImagesUpdated",
          status: "True",
          reason: r.pushed ? "Pushed" : "UpToDate",
          message: r.pushed
            ? `pushed ${r.commit} to ${branch}: ${r.changes.length} image reference(s) updated`
            : `every $imagepolicy marker on ${branch} is up to date`,
        };
      } catch (err) {
        const reason = err instanceof CredentialsRefused
          ? "AuthenticationFailure"
          : err instanceof WriteBackError
          ? err.reason
          : undefined;
        if (!reason) throw err;
        imagesUpdated = { type: "ImagesUpdated", status: "False", reason, message: (err as Error).message };
      }
    }

    // Credentials, then fetch.
    let fetched: FetchedCommit;
    try {
      fetched = await doFetch({
        url: repo.spec.git.url,
        revision: repo.spec.git.revision ?? "main",
        credentials: await readGitCredentials(o.client, repo),
        cacheRoot: o.cacheRoot,
      });
    } catch (err) {
      const reason = err instanceof CredentialsRefused ||
          (err instanceof GitSourceError && err.reason === "AuthenticationFailure")
        ? "AuthenticationFailure"
        : err instanceof RemoteUrlError || err instanceof GitSourceError
        ? "SourceFailure"
        : undefined;
      if (!reason) throw err; // Unexpected: retried with backoff by the queue.
      await writeStatus(repo, {
        observedGeneration: repo.metadata?.generation,
        ...(requested ? { lastHandledReconcileAt: requested } : {}),
        // A failed fetch says nothing new about discovery: its condition stays as it was.
        ...(imageUpdate ? { imageUpdate } : {}),
        conditions: [
          ready(repo, "False", reason, (err as Error).message),
          transitioned(repo, imagesUpdated),
          ...(repo.status?.conditions ?? []).filter((c) => c.type === "Discovered"),
        ],
      });
      return { requeueAfterMs: pollMs };
    }

    // Discover Applications from the commit's .gitsync.yaml files.
    const discovered = o.discover ? await o.discover(repo, fetched) : undefined;

    // Record.
    await writeStatus(repo, {
      observedGeneration: repo.metadata?.generation,
      artifact: {
        revision: fetched.commit,
        ref: repo.spec.git.revision ?? "main",
        fetchedAt: now().toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
      ...(requested ? { lastHandledReconcileAt: requested } : {}),
      ...(imageUpdate ? { imageUpdate } : {}),
      conditions: [
        ready(repo, "True", "Succeeded", `fetched ${fetched.commit}`),
        transitioned(repo, imagesUpdated),
        ...(discovered ? [transitioned(repo, discovered)] : []),
      ],
    });
    return { requeueAfterMs: pollMs };
  };
}
