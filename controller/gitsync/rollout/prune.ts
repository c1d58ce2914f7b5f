/**
 * What pruning may delete (seed sections 1.5, 6; notes section 2): the managed objects found by the
 * inventory that the new desired state no longer has. High-risk kinds (Namespace, CRD, PVC, PV,
 * Secret) are never pruned during sync: they stay, are reported (PruneSkipped names up to five, once
 * per attempt) and the sync does not fail. An object annotated `sync.gitsync.io/prune: disabled` is
 * kept the same way. Hook objects are not pruned: they belong to the rollout that ran them.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { HOOK_ANNOTATION, PRUNE_ANNOTATION } from "../api/mod.ts";

export const HIGH_RISK_KINDS = new Set([
  "Namespace",
  "CustomResourceDefinition",
  "PersistentVolumeClaim",
  "PersistentVolume",
  "Secret",
]);

export interface PrunePlan {
  /** Objects to delete, in the reverse of a safe creation order (workloads before their config). */
  delete: KubeObject[];
  /** Objects kept although the desired state dropped them. */
  skipped: KubeObject[];
  /** The PruneSkipped Event's message, or undefined when nothing was kept. */
  skippedMessage?: string;
}

/** apiVersion + kind + namespace + name: one identity for live and desired objects. */
export function identity(o: KubeObject): string {
  const group = (o.apiVersion ?? "").includes("/") ? o.apiVersion!.split("/")[0] : "";
  return `${group}/${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
}

function ref(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind}/${ns ? `${ns}/` : ""}${o.metadata?.name}`;
}

/** Deletion order: things that use others first (workloads), then what they use, then the rest. */
const DELETE_FIRST = [
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "CronJob",
  "Pod",
  "Service",
  "Ingress",
];

export function planPrune(live: KubeObject[], desired: KubeObject[]): PrunePlan {
  const wanted = new Set(desired.map(identity));
  const candidates = live.filter((o) =>
    !wanted.has(identity(o)) && !o.metadata?.deletionTimestamp &&
    o.metadata?.annotations?.[HOOK_ANNOTATION] === undefined
  );
  const skipped = candidates.filter((o) =>
    HIGH_RISK_KINDS.has(o.kind ?? "") || o.metadata?.annotations?.[PRUNE_ANNOTATION] === "disabled"
  );
  const rank = (o: KubeObject) => {
    const i = DELETE_FIRST.indexOf(o.kind ?? "");
    return i < 0 ? DELETE_FIRST.length : i;
  };
  const toDelete = candidates.filter((o) => !skipped.includes(o)).sort((a, b) =>
    rank(a) - rank(b) || ref(a).localeCompare(ref(b))
  );
  if (!skipped.length) return { delete: toDelete, skipped };
  const names = skipped.map(ref).sort();
  const shown = names.slice(0, 5).join(", ");
  const more = names.length > 5 ? ` and ${names.length - 5} more` : "";
  return {
    delete: toDelete,
    skipped,
    skippedMessage: `prune kept ${names.length} object(s) the Revision no longer has: ${shown}${more}` +
      " (high-risk kinds and objects with sync.gitsync.io/prune: disabled are never pruned during sync)",
  };
}
