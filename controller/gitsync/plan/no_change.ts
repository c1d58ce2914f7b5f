/**
 * A plan that changes nothing live needs neither approval nor a rollout (issue 37): a commit that touches
 * only another Application's path makes a Revision of this one whose every object is unchanged. It is
 * recorded as deployed at once, but only while what runs is Healthy: over an unhealthy live state, saying
 * "deployed and Healthy" would be false, so the Revision goes the usual way.
 */
import type { AppliedObject } from "../rollout/apply.ts";
import { assessHealth } from "../health/assess.ts";
import type { Plan } from "../api/mod.ts";

/** Whether `plan` (made from the dry-run results `applied`) changes nothing and what runs is Healthy. */
export function changesNothing(plan: Plan, applied: AppliedObject[]): boolean {
  const s = plan.summary;
  if (s.create || s.update || s.prune) return false;
  return applied.every((a) =>
    assessHealth({ ...a.after, kind: a.desired.kind, apiVersion: a.desired.apiVersion }).status === "Healthy"
  );
}
