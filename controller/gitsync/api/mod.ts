/**
 * gitsync's API (sync.gitsync.io/v1alpha1), as Flux keeps its api/v1: the kinds' types, their labels
 * and annotations, condition types and reasons, Revision phases and durations. Types and constants
 * only (no I/O), so the CLI, the console and the reconcilers share them without loading each other.
 *
 * @example
 * import { type Application, APPLICATION_LABEL, API_VERSION } from "../../controller/gitsync/api/mod.ts";
 */
export { API_VERSION, GROUP, VERSION } from "./group.ts";
export * from "./labels.ts";
export { type Condition, type ConditionStatus, ConditionType, Reason } from "./conditions.ts";
export { type RevisionPhase, UNFINISHED_PHASES } from "./phases.ts";
export { DEFAULT_INTERVAL_MS, parseDuration } from "./duration.ts";
export {
  type Application,
  type Decryption,
  DEFAULT_HEALTH_TIMEOUT_MS,
  DEFAULT_HISTORY_LIMIT,
  type HelmChartRef,
  type HelmSource,
  type ValuesFromRef,
} from "./application.ts";
export type {
  Approval,
  Cause,
  Diagnosis,
  Failure,
  HookState,
  HookStatus,
  ObjectRef,
  Plan,
  PlanAction,
  PlanEntry,
  Revision,
  RolloutPosition,
} from "./revision.ts";
export type { Repository } from "./repository.ts";
export type { ImagePolicy, TagPolicy } from "./image_policy.ts";
export type { NotificationSink } from "./notification_sink.ts";
