/**
 * The order a Revision's objects are applied in (seed section 1.3): pre-sync hooks, then sync waves
 * ascending, then pruning, then post-sync hooks; each group must be Healthy before the next starts.
 * Objects say where they go with two annotations: `sync.gitsync.io/hook` (pre-sync, post-sync, or
 * skip to leave the object out) and `sync.gitsync.io/sync-wave` (an integer, default 0, negatives
 * allowed). Anything else there, or another tool's hook annotation (Argo CD's, Helm's when it was not
 * mapped by the Helm renderer), is refused before anything is applied: reason ValidationFailure.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { ANNOTATION, HOOK_ANNOTATION, WAVE_ANNOTATION } from "../api/mod.ts";

/** Only the admission webhook and people set these; copies in Git are removed (seed section 2). */
const STRIPPED = ["approved-by", "approved-at", "approved-digest", "approved-revision", "approve-digest"]
  .map((a) => `${ANNOTATION}${a}`);
const STRIPPED_PREFIXES = [`${ANNOTATION}rollback-`];
/** Hook annotations of other tools, which would otherwise be applied as plain objects. */
const FOREIGN_HOOKS = ["argocd.argoproj.io/hook", "argocd.argoproj.io/sync-wave", "helm.sh/hook"];

export type Group =
  | { stage: "pre-sync"; objects: KubeObject[] }
  | { stage: "wave"; wave: number; objects: KubeObject[] }
  | { stage: "prune" }
  | { stage: "post-sync"; objects: KubeObject[] };

export class ValidationFailure extends Error {
  override name = "ValidationFailure";
  readonly reason = "ValidationFailure";
}

function describe(o: KubeObject): string {
  const m = o.metadata ?? {};
  return `${o.kind}/${m.namespace ? `${m.namespace}/` : ""}${m.name}`;
}

/** A copy of `o` without the annotations only the webhook and people may set. */
export function stripControlAnnotations(o: KubeObject): KubeObject {
  const annotations = o.metadata?.annotations;
  if (!annotations) return o;
  const kept = Object.fromEntries(
    Object.entries(annotations).filter(([k]) =>
      !STRIPPED.includes(k) && !STRIPPED_PREFIXES.some((p) => k.startsWith(p))
    ),
  );
  return { ...o, metadata: { ...o.metadata, annotations: kept } };
}

/**
 * Splits rendered objects into the ordered groups of a rollout (empty groups left out; the prune
 * step is always there). Throws ValidationFailure naming the object for an unknown hook value, a
 * foreign hook annotation or a sync-wave that is not an integer.
 */
export function rolloutGroups(objects: KubeObject[]): Group[] {
  const pre: KubeObject[] = [];
  const post: KubeObject[] = [];
  const waves = new Map<number, KubeObject[]>();
  for (const raw of objects) {
    const o = stripControlAnnotations(raw);
    const annotations = o.metadata?.annotations ?? {};
    const foreign = FOREIGN_HOOKS.find((a) => a in annotations);
    if (foreign) {
      throw new ValidationFailure(
        `${
          describe(o)
        }: annotation ${foreign} is not supported; use ${HOOK_ANNOTATION} (pre-sync, post-sync, skip) ` +
          `or ${WAVE_ANNOTATION}`,
      );
    }
    const hook = annotations[HOOK_ANNOTATION];
    if (hook === "skip") continue;
    if (hook === "pre-sync") {
      pre.push(o);
      continue;
    }
    if (hook === "post-sync") {
      post.push(o);
      continue;
    }
    if (hook !== undefined) {
      throw new ValidationFailure(
        `${describe(o)}: unknown ${HOOK_ANNOTATION} value "${hook}" (allowed: pre-sync, post-sync, skip)`,
      );
    }
    const waveText = annotations[WAVE_ANNOTATION] ?? "0";
    if (!/^-?\d+$/.test(waveText.trim()) || !Number.isSafeInteger(Number(waveText))) {
      throw new ValidationFailure(`${describe(o)}: ${WAVE_ANNOTATION} must be an integer, got "${waveText}"`);
    }
    const wave = Number(waveText);
    waves.set(wave, [...(waves.get(wave) ?? []), o]);
  }
  const groups: Group[] = [];
  if (pre.length) groups.push({ stage: "pre-sync", objects: pre });
  for (const wave of [...waves.keys()].sort((a, b) => a - b)) {
    groups.push({ stage: "wave", wave, objects: waves.get(wave)! });
  }
  groups.push({ stage: "prune" });
  if (post.length) groups.push({ stage: "post-sync", objects: post });
  return groups;
}
