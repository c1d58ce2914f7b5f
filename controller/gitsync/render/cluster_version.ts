/**
 * The cluster's Kubernetes version (`GET /version`, gitVersion), which Helm's templates see as
 * .Capabilities.KubeVersion, as `helm install` and Argo CD give it. Read at most once an hour; when the
 * API server does not answer, the renderer's default (helm.ts DEFAULT_KUBE_VERSION) is used.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";

export function clusterVersion(client: KubeClient, maxAgeMs = 3600_000): () => Promise<string | undefined> {
  let cached: { version: string | undefined; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < maxAgeMs) return cached.version;
    try {
      const v = await client.request<{ gitVersion?: string }>({ path: "/version" });
      cached = { version: v?.gitVersion, at: Date.now() };
    } catch {
      // Try again on the next render rather than pinning a failure for an hour.
      return undefined;
    }
    return cached.version;
  };
}
