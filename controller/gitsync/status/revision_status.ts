/**
 * A Revision and what its status holds (seed section 2: plan, approval, hooks, failure, diagnosis,
 * condition RolloutComplete), with the status of each way a rollout ends: complete (Healthy), failed,
 * superseded. The reconciler writes these with replacingMergePatch, so each field replaces the old value
 * whole. Pure.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Diagnosis } from "../diagnosis/diagnose.ts";
import type { Plan } from "../plan/plan.ts";
import type { RolloutState } from "../rollout/rollout.ts";
import { type Condition, setCondition } from "./conditions.ts";

export interface Revision extends KubeObject {
  spec: { applicationRef: { name: string }; sourceRevision: string; serviceAccountName: string };
  status?: {
    phase?: string;
    plan?: Plan;
    approval?:
      | { approvedBy: string; approvedAt: string; planDigest: string; desiredStateHash?: string }
      | null;
    /**
     * selfHeal: this attempt restores drifted objects, taking their fields back from other managers;
     * waitingFor: what the group waits for; waitingSince: since when (the health timeout counts from it).
     */
    rollout?: RolloutPosition;
    hooks?: RolloutState["hooks"];
    failure?: { reason: string; message: string; resource?: unknown; retryable?: boolean };
    lastHandledRetryAt?: string;
    conditions?: Condition[];
    diagnosis?: Diagnosis;
    startedAt?: string;
    finishedAt?: string;
  };
}

interface RolloutPosition {
  attempt: number;
  group: number;
  selfHeal?: boolean;
  waitingFor?: string;
  waitingSince?: string;
}

type RevisionStatus = NonNullable<Revision["status"]>;
/** A status write: null removes a field. */
export type StatusPatch = { [K in Exclude<keyof RevisionStatus, "rollout">]?: RevisionStatus[K] | null } & {
  rollout?: Omit<RolloutPosition, "selfHeal"> & { selfHeal?: boolean | null };
};

/** Phases a Revision has not finished in: it becomes Superseded when its Application wants another. */
export const UNFINISHED_PHASES: ReadonlySet<string> = new Set([
  "Pending",
  "Planning",
  "AwaitingApproval",
  "Applying",
]);

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The rollout position as status keeps it (hooks have a field of their own). */
export const stored = (s: RolloutState, selfHeal: boolean, waitingFor?: string): RolloutPosition => ({
  attempt: s.rollout,
  group: s.group,
  ...(selfHeal ? { selfHeal } : {}),
  ...(waitingFor ? { waitingFor } : {}),
  ...(s.waitingSince ? { waitingSince: s.waitingSince } : {}),
});

/** The object a waitingFor names ("Deployment/shop/web: Progressing (...)" → "Deployment/shop/web"). */
export const waitedObject = (w: string | undefined) => w?.split(": ")[0];

/** Healthy: RolloutComplete True with `reason` (RolloutComplete, or NoChanges for a plan that changed nothing). */
export function completedStatus(rev: Revision, reason: string, message: string, now: Date): StatusPatch {
  return {
    phase: "Healthy",
    finishedAt: iso(now),
    conditions: setCondition(
      rev.status?.conditions,
      { type: "RolloutComplete", status: "True", reason, message },
      now,
    ),
  };
}

/** Failed with the reason; `message` already redacted. A ValidationFailure needs a new commit. */
export function failedStatus(
  rev: Revision,
  failure: { reason: string; message: string; resource?: unknown },
  now: Date,
): StatusPatch {
  const { reason, message, resource } = failure;
  return {
    phase: "Failed",
    failure: {
      reason,
      message,
      ...(resource ? { resource } : {}),
      retryable: reason !== "ValidationFailure",
    },
    finishedAt: iso(now),
    conditions: setCondition(
      rev.status?.conditions,
      { type: "RolloutComplete", status: "False", reason, message },
      now,
    ),
  };
}

/**
 * A Revision its Application no longer wants (a new commit, or a rollback, made another one desired):
 * the terminal phase Superseded, RolloutComplete False saying which Revision took over.
 */
export function supersededStatus(rev: Revision, by: string, now: Date): StatusPatch {
  const stopped = rev.status?.phase === "Applying" ? "; its rollout stopped part-way" : "";
  return {
    phase: "Superseded",
    finishedAt: iso(now),
    conditions: setCondition(rev.status?.conditions, {
      type: "RolloutComplete",
      status: "False",
      reason: "Superseded",
      message: `Application ${rev.spec.applicationRef.name} wants Revision ${by} now${stopped}`,
    }, now),
  };
}
