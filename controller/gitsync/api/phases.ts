/** The phases of a Revision, as its status.phase says them. */

/** Revision phases: Pending → (Planning) → AwaitingApproval → Applying → Healthy | Failed | Superseded. */
export type RevisionPhase =
  | "Pending"
  | "Planning"
  | "AwaitingApproval"
  | "Applying"
  | "Healthy"
  | "Failed"
  | "Superseded";

/** Phases a Revision has not finished in: it becomes Superseded when its Application wants another. */
export const UNFINISHED_PHASES: ReadonlySet<string> = new Set<RevisionPhase>([
  "Pending",
  "Planning",
  "AwaitingApproval",
  "Applying",
]);
