/**
 * A Revision and what its status holds (seed section 2: plan, approval, hooks, failure, diagnosis,
 * condition RolloutComplete), with the status of each way a rollout ends: complete (Healthy), failed,
 * superseded. The reconciler writes these with replacingMergePatch, so each field replaces the old value
 * whole. Pure.
 */
import type { RolloutState } from "../rollout/rollout.ts";
import { setCondition } from "./conditions.ts";
import type { Revision, RolloutPosition } from "../api/mod.ts";

type RevisionStatus = NonNullable<Revision["status"]>;
/** A status write: null removes a field. */
export type StatusPatch = { [K in Exclude<keyof RevisionStatus, "rollout">]?: RevisionStatus[K] | null } & {
  rollout?: Omit<RolloutPosition, "selfHeal"> & { selfHeal?: boolean | null };
};

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
