/**
 * ImagePolicy (seed section 2): an image repository scanned on an interval, the tag its policy picks,
 * and the image:tag@digest it found (status.latestImage), which Repositories write back into Git.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Condition } from "./conditions.ts";

export type TagPolicy =
  | { semver: { range: string } }
  | { tagPattern: { regex: string; order?: "asc" | "desc" } }
  | { digest: { tag: string } };

export interface ImagePolicy extends KubeObject {
  spec: {
    image: string;
    secretRef?: { name: string };
    interval?: string;
    policy: TagPolicy;
    webhook?: { secretRef?: { name: string } };
  };
  status?: {
    observedGeneration?: number;
    conditions?: Condition[];
    latestImage?: string;
    latestTag?: string;
    latestDigest?: string;
    lastScanTime?: string;
    lastHandledReconcileAt?: string;
  };
}
