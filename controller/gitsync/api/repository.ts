/**
 * Repository (seed section 2): a Git remote fetched on an interval or on a push, with the commit it
 * found (status.artifact), image write-back and the Applications its .gitsync.yaml files declare.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Condition } from "./conditions.ts";

export interface Repository extends KubeObject {
  spec: {
    git: { url: string; revision?: string; auth?: { secretRef?: { name: string } } };
    pollInterval?: string;
    webhook?: { secretRef?: { name: string } };
    imageUpdate?: { secretRef: { name: string }; branch?: string; path?: string };
    applicationConfigPaths?: string[];
    applicationServiceAccountName?: string;
    applicationPolicy?: {
      allowAutomatic?: boolean;
      allowPrune?: boolean;
      allowAdopt?: boolean;
      allowDeleteManagedResources?: boolean;
    };
  };
  status?: {
    observedGeneration?: number;
    artifact?: { revision?: string; ref?: string; fetchedAt?: string };
    lastHandledReconcileAt?: string;
    imageUpdate?: { observedImages?: string; lastPushedCommit?: string; lastPushTime?: string };
    conditions?: Condition[];
  };
}
