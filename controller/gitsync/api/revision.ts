/**
 * Revision (seed section 2): one commit of an Application's source as one service account, and what
 * became of it: the plan and its digest, the approval, the rollout's position and hooks, how it ended
 * (failure, diagnosis) and condition RolloutComplete.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Condition } from "./conditions.ts";

export type PlanAction = "create" | "update" | "unchanged" | "prune" | "prune-skipped";

export interface PlanEntry {
  action: PlanAction;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Unified diff, redacted; absent for unchanged objects and when the budget ran out. */
  diff?: string;
}

/** status.plan: what a rollout would do, and the digest approvals bind to. */
export interface Plan {
  digest: string;
  /**
   * sha256 of the desired state alone: a rollback counts as approval of an earlier Revision only while
   * what it renders is unchanged (its plan digest differs by then, as the live objects have moved on).
   */
  desiredStateHash: string;
  entries: PlanEntry[];
  /** Counts per action; JSON field names as in the CRD (prune-skipped is pruneSkipped). */
  summary: { create: number; update: number; unchanged: number; prune: number; pruneSkipped: number };
  /** True when diffs were left out to keep the plan within its size budget. */
  truncated: boolean;
}

export type HookState = "Pending" | "Running" | "Succeeded" | "Failed" | "Deleted";

/** status.hooks[]: a hook of this rollout and how it went. */
export interface HookStatus {
  kind: string;
  namespace?: string;
  name: string;
  stage: "pre-sync" | "post-sync";
  state: HookState;
  /** The rollout attempt this state belongs to. */
  rollout: number;
  message?: string;
}

export interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

export interface Cause {
  reason: string;
  message: string;
  /** From the unhealthy managed object down to the root cause. */
  chain: ObjectRef[];
}

/** status.diagnosis: why a wave's objects are not Healthy. */
export interface Diagnosis {
  firstRootCause?: { reason: string; message: string; resource: ObjectRef };
  causes: Cause[];
  diagnosedAt: string;
}

/**
 * status.rollout. selfHeal: this attempt restores drifted objects, taking their fields back from other
 * managers; waitingFor: what the group waits for; waitingSince: since when (the health timeout counts
 * from it).
 */
export interface RolloutPosition {
  attempt: number;
  group: number;
  selfHeal?: boolean;
  waitingFor?: string;
  waitingSince?: string;
}

export interface Approval {
  approvedBy: string;
  approvedAt: string;
  planDigest: string;
  /** A rollback's approval binds to the desired state instead of the plan. */
  desiredStateHash?: string;
}

export interface Failure {
  reason: string;
  message: string;
  resource?: unknown;
  /** False for a reason only a new commit can fix (ValidationFailure). */
  retryable?: boolean;
}

export interface Revision extends KubeObject {
  spec: { applicationRef: { name: string }; sourceRevision: string; serviceAccountName: string };
  status?: {
    phase?: string;
    plan?: Plan;
    approval?: Approval | null;
    rollout?: RolloutPosition;
    hooks?: HookStatus[];
    failure?: Failure;
    lastHandledRetryAt?: string;
    conditions?: Condition[];
    diagnosis?: Diagnosis;
    startedAt?: string;
    finishedAt?: string;
  };
}
