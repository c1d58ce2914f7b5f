/**
 * The ImagePolicy reconciler (seed sections 2, 5.3, 8): scans the image repository's tags on
 * spec.interval, at once when the receiver stamps `sync.gitsync.io/reconcile-requested-at` (a registry
 * push event) and when the spec changes; picks a tag by spec.policy and records image:tag@digest in
 * status.latestImage. Reads top to bottom as its states: load → due? → policy → credentials → scan →
 * record. Every exit sets the Ready condition with a reason.
 *
 * Registry credentials come only from a dockerconfigjson Secret in the same namespace labelled
 * `sync.gitsync.io/registry-credentials=true`, read with an uncached get every time.
 */
import type { EventRecorder, KubeClient } from "../../../internal/k8s/mod.ts";
import type { ReconcileResult } from "../../../internal/k8s/workqueue.ts";
import { PolicyError, selectTag, validatePolicy } from "../images/policy.ts";
import { parseImage, RegistryClient, RegistryError } from "../images/registry_client.ts";
import { readRegistryCredentials, RegistryCredentialsRefused } from "../images/registry_credentials.ts";
import type { HostLimiter } from "../images/host_limiter.ts";
import {
  API_VERSION,
  DEFAULT_INTERVAL_MS,
  type ImagePolicy,
  parseDuration,
  RECONCILE_REQUESTED_AT,
  type TagPolicy,
} from "../api/mod.ts";
import { patchStatus } from "../client/mod.ts";
import { transitioned } from "../status/conditions.ts";

export interface ImagePolicyReconcilerOptions {
  client: KubeClient;
  get: (key: string) => ImagePolicy | undefined;
  events?: EventRecorder;
  limiter?: HostLimiter;
  now?: () => Date;
}

class Refused extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

function describePolicy(p: TagPolicy): string {
  if ("semver" in p) return `semver range ${p.semver.range}`;
  if ("tagPattern" in p) return `tag pattern ${p.tagPattern.regex}`;
  return `tag ${p.digest.tag}`;
}

export function imagePolicyReconciler(o: ImagePolicyReconcilerOptions) {
  const now = o.now ?? (() => new Date());
  const stamp = () => now().toISOString().replace(/\.\d{3}Z$/, "Z");

  const ready = (p: ImagePolicy, status: "True" | "False", reason: string, message: string) =>
    transitioned(p.status?.conditions, {
      type: "Ready",
      status,
      reason,
      message,
      observedGeneration: p.metadata?.generation,
    }, now());
  const writeStatus = (p: ImagePolicy, status: NonNullable<ImagePolicy["status"]>) =>
    patchStatus(o.client, "imagepolicies", p, status);

  return async function reconcile(key: string): Promise<ReconcileResult> {
    // Load.
    const p = o.get(key);
    if (!p) return {};
    const intervalMs = parseDuration(p.spec.interval ?? "5m") || DEFAULT_INTERVAL_MS;
    const requested = p.metadata?.annotations?.[RECONCILE_REQUESTED_AT];
    const scannedAt = p.status?.lastScanTime ? Date.parse(p.status.lastScanTime) : 0;
    // Due? A new spec, a receiver's stamp not handled yet, or the interval passed.
    const due = p.status?.observedGeneration !== p.metadata?.generation ||
      (requested !== undefined && requested !== p.status?.lastHandledReconcileAt) ||
      now().getTime() - scannedAt >= intervalMs;
    if (!due) return { requeueAfterMs: Math.max(1000, scannedAt + intervalMs - now().getTime()) };
    const handled = {
      observedGeneration: p.metadata?.generation,
      lastScanTime: stamp(),
      ...(requested ? { lastHandledReconcileAt: requested } : {}),
    };

    try {
      // Policy, before any registry call.
      try {
        validatePolicy(p.spec.policy);
      } catch (err) {
        if (err instanceof PolicyError) throw new Refused("InvalidPolicy", err.message);
        throw err;
      }
      // Credentials, then scan.
      const credentials = await readRegistryCredentials(o.client, p);
      const client = new RegistryClient(parseImage(p.spec.image), {
        ...(credentials ? { credentials } : {}),
        ...(o.limiter ? { limiter: o.limiter } : {}),
      });
      const tags = await client.tags();
      const tag = selectTag(p.spec.policy, tags);
      if (!tag) {
        throw new Refused(
          "NoMatchingTag",
          `none of the ${tags.length} tags of ${p.spec.image} matches the ${describePolicy(p.spec.policy)}`,
        );
      }
      const digest = await client.digest(tag);

      // Record.
      const latestImage = `${p.spec.image}:${tag}@${digest}`;
      if (latestImage !== p.status?.latestImage && o.events) {
        await o.events.normal(
          { ...p, apiVersion: API_VERSION, kind: "ImagePolicy" },
          "NewImage",
          p.status?.latestImage ? `${p.status.latestImage} -> ${latestImage}` : `latest image ${latestImage}`,
        );
      }
      await writeStatus(p, {
        ...handled,
        latestImage,
        latestTag: tag,
        latestDigest: digest,
        conditions: [ready(p, "True", "Succeeded", `latest image ${latestImage}`)],
      });
    } catch (err) {
      const refused = err instanceof Refused
        ? err
        : err instanceof RegistryError || err instanceof RegistryCredentialsRefused
        ? new Refused(err.reason, err.message)
        : undefined;
      if (!refused) throw err; // Unexpected: retried with backoff by the queue.
      // The last good image stays: a registry outage must not roll anything back.
      await writeStatus(p, { ...handled, conditions: [ready(p, "False", refused.reason, refused.message)] });
    }
    return { requeueAfterMs: intervalMs };
  };
}
