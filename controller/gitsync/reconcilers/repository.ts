/**
 * The Repository reconciler (seed sections 2, 4, 5.3, 8): fetches the remote on its poll interval,
 * at once when the push receiver stamps `sync.gitsync.io/reconcile-requested-at`, and when the spec
 * changes; records the commit in status.artifact and the outcome in the Ready condition. Reads top to
 * bottom as its states: load → due? → image write-back → credentials, fetch → discover → record.
 *
 * Credentials come only from a Secret in the Repository's namespace labelled
 * `sync.gitsync.io/git-credentials=true`, read with an uncached get every time (source/git/credentials.ts).
 */
import { createHash } from "node:crypto";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { type FetchedCommit, fetchGit, GitSourceError } from "../source/git/git_source.ts";
import { RemoteUrlError } from "../source/git/remote_url.ts";
import type { LatestImage } from "../images/markers.ts";
import { writeBack, WriteBackError } from "../images/write_back.ts";
import {
  type Condition,
  DEFAULT_INTERVAL_MS,
  parseDuration,
  RECONCILE_REQUESTED_AT,
  type Repository,
} from "../api/mod.ts";
import { patchStatus } from "../client/mod.ts";
import { CredentialsRefused, readGitCredentials } from "../source/git/credentials.ts";
import { transitioned } from "../status/conditions.ts";

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

/** A short fingerprint of the images a write-back would write, so a change of any policy is noticed. */
function imagesFingerprint(images: Map<string, LatestImage>): string {
  const lines = [...images].map(([name, i]) => `${name}=${i.image}:${i.tag}@${i.digest ?? ""}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

/** One reconcile of one Repository. */
interface RepositoryContext {
  o: RepositoryReconcilerOptions;
  now: () => Date;
  key: string;
  repo: Repository;
}

const stamp = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The Repository's condition `c`, its lastTransitionTime kept while status and reason hold. */
const condition = (c: RepositoryContext, x: Condition) => transitioned(c.repo.status?.conditions, x, c.now());

function ready(c: RepositoryContext, status: "True" | "False", reason: string, message: string): Condition {
  return condition(c, {
    type: "Ready",
    status,
    reason,
    message,
    observedGeneration: c.repo.metadata?.generation,
  });
}

export function repositoryReconciler(o: RepositoryReconcilerOptions) {
  const now = o.now ?? (() => new Date());

  return async function reconcile(key: string): Promise<ReconcileResult> {
    // Load.
    const repo = o.get(key);
    if (!repo) return {};
    const c: RepositoryContext = { o, now, key, repo };
    const pollMs = parseDuration(repo.spec.pollInterval ?? "5m") || DEFAULT_INTERVAL_MS;
    const requested = repo.metadata?.annotations?.[RECONCILE_REQUESTED_AT];
    const fetchedAt = repo.status?.artifact?.fetchedAt ? Date.parse(repo.status.artifact.fetchedAt) : 0;
    const images = repo.spec.imageUpdate
      ? o.latestImages?.(repo.metadata!.namespace!) ?? new Map()
      : undefined;
    const imagesSeen = images ? imagesFingerprint(images) : undefined;
    // Due? A new spec, a receiver's stamp not handled yet, the poll interval passed, or an
    // ImagePolicy found an image the last write-back did not see. Not due: Ready stays as it is.
    const due = repo.status?.observedGeneration !== repo.metadata?.generation ||
      (requested !== undefined && requested !== repo.status?.lastHandledReconcileAt) ||
      now().getTime() - fetchedAt >= pollMs ||
      (imagesSeen !== undefined && imagesSeen !== repo.status?.imageUpdate?.observedImages);
    if (!due) return { requeueAfterMs: Math.max(1000, fetchedAt + pollMs - now().getTime()) };
    const handled = {
      observedGeneration: repo.metadata?.generation,
      ...(requested ? { lastHandledReconcileAt: requested } : {}),
    };

    // Image write-back first, so the fetch below already sees what it pushed.
    const written = images && imagesSeen ? await writeImagesBack(c, images, imagesSeen) : writeBackOff(c);
    const imageUpdate = written.imageUpdate ? { imageUpdate: written.imageUpdate } : {};

    // Credentials, then fetch.
    const fetched = await fetchCommit(c);
    if ("reason" in fetched) {
      await patchStatus(o.client, "repositories", repo, {
        ...handled,
        // A failed fetch says nothing new about discovery: its condition stays as it was.
        ...imageUpdate,
        conditions: [
          ready(c, "False", fetched.reason, fetched.message),
          written.condition,
          ...(repo.status?.conditions ?? []).filter((x) => x.type === "Discovered"),
        ],
      });
      return { requeueAfterMs: pollMs };
    }

    // Discover Applications from the commit's .gitsync.yaml files.
    const discovered = o.discover ? await o.discover(repo, fetched) : undefined;

    // Record.
    await patchStatus(o.client, "repositories", repo, {
      observedGeneration: handled.observedGeneration,
      artifact: { revision: fetched.commit, ref: repo.spec.git.revision ?? "main", fetchedAt: stamp(now()) },
      ...(requested ? { lastHandledReconcileAt: requested } : {}),
      ...imageUpdate,
      conditions: [
        ready(c, "True", "Succeeded", `fetched ${fetched.commit}`),
        written.condition,
        ...(discovered ? [condition(c, discovered)] : []),
      ],
    });
    return { requeueAfterMs: pollMs };
  };
}

/** Image write-back as it stands when spec.imageUpdate is not set. */
function writeBackOff(c: RepositoryContext) {
  return {
    imageUpdate: c.repo.status?.imageUpdate,
    condition: condition(c, {
      type: "ImagesUpdated",
      status: "False",
      reason: "Disabled",
      message: "image write-back is off (spec.imageUpdate is not set)",
    }),
  };
}

/**
 * Writes the ImagePolicies' latest images into the $imagepolicy markers on the branch and pushes
 * (images/write_back.ts); condition ImagesUpdated says what happened (Pushed, UpToDate, or the failure).
 */
async function writeImagesBack(c: RepositoryContext, images: Map<string, LatestImage>, imagesSeen: string) {
  const { repo, o, now } = c;
  const spec = repo.spec.imageUpdate!;
  const branch = spec.branch ?? repo.spec.git.revision ?? "main";
  let imageUpdate = repo.status?.imageUpdate;
  let imagesUpdated: Condition;
  try {
    const r = await (o.writeBack ?? writeBack)({
      url: repo.spec.git.url,
      branch,
      ...(spec.path ? { path: spec.path } : {}),
      credentials: await readGitCredentials(o.client, repo, "spec.imageUpdate"),
      cacheRoot: o.cacheRoot,
      cacheKey: c.key,
      namespace: repo.metadata!.namespace!,
      latest: (name) => images.get(name),
      now,
    });
    imageUpdate = {
      ...imageUpdate,
      observedImages: imagesSeen,
      ...(r.pushed ? { lastPushedCommit: r.commit, lastPushTime: stamp(now()) } : {}),
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
  return { imageUpdate, condition: condition(c, imagesUpdated) };
}

/** The fetched commit, or why there is none (AuthenticationFailure, SourceFailure); else it throws. */
async function fetchCommit(
  c: RepositoryContext,
): Promise<FetchedCommit | { reason: string; message: string }> {
  const { repo, o } = c;
  try {
    return await (o.fetch ?? fetchGit)({
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
    return { reason, message: (err as Error).message };
  }
}
