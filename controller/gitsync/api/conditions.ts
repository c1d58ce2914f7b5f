/**
 * Conditions as gitsync's kinds report them: the types, and the reasons the reconcilers give (a failure
 * of a rollout step gives its own reason: HealthFailure, ApplyFailure, RenderFailure, Forbidden,
 * HookFailed, ValidationFailure, DecryptionFailure...). Every exit of a reconciler records one.
 */

/** metav1.Condition, as every Kubernetes kind records it. */
export type { Condition } from "../../../internal/k8s/mod.ts";

export type ConditionStatus = "True" | "False" | "Unknown";

/** Condition types. */
export const ConditionType = {
  /** Application: the desired Revision is deployed and Healthy; Repository, ImagePolicy: the last fetch or scan worked. */
  Ready: "Ready",
  /** Application: the cluster differs from the deployed Revision. */
  Drifted: "Drifted",
  /** Application: every notification sink and its Secret are usable. */
  NotificationsReady: "NotificationsReady",
  /** Revision: its rollout ended Healthy (True) or not (False, with the reason). */
  RolloutComplete: "RolloutComplete",
  /** Repository: the Applications its .gitsync.yaml files declare. */
  Discovered: "Discovered",
  /** Repository: image write-back. */
  ImagesUpdated: "ImagesUpdated",
} as const;

/** The reasons reconcilers give of their own (failures of a rollout step bring theirs). */
export const Reason = {
  // Application Ready.
  ServiceAccountRequired: "ServiceAccountRequired",
  SourceNotReady: "SourceNotReady",
  Progressing: "Progressing",
  RolloutComplete: "RolloutComplete",
  RolledBack: "RolledBack",
  RollingBack: "RollingBack",
  NoChanges: "NoChanges",
  Superseded: "Superseded",
  // Application Drifted.
  DriftDetected: "DriftDetected",
  InSync: "InSync",
  RolloutFailed: "RolloutFailed",
  // Application NotificationsReady.
  SinksReady: "SinksReady",
  SinkInvalid: "SinkInvalid",
  // Repository and ImagePolicy Ready, Repository ImagesUpdated.
  Succeeded: "Succeeded",
  AuthenticationFailure: "AuthenticationFailure",
  SourceFailure: "SourceFailure",
  Disabled: "Disabled",
  Pushed: "Pushed",
  UpToDate: "UpToDate",
  InvalidPolicy: "InvalidPolicy",
  NoMatchingTag: "NoMatchingTag",
} as const;
