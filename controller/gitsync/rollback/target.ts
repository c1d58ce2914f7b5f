/**
 * Which Revision a rollback rolls out (seed section 3: "the newest known-good Revision other than desired
 * and deployed"; issue 37). Known-good: it once rolled out Healthy (condition RolloutComplete True).
 * The deployed Revision is excluded only while it is what runs: once the desired Revision's rollout has
 * started and not completed (it failed, or is still applying, part-way), its objects are live, so the
 * deployed Revision is the last good state and the default target. An explicit target (`gitsync rollback
 * --to-revision`, annotation sync.gitsync.io/rollback-to-revision) must exist, belong to the
 * Application and be known-good; each refusal says which of these it is not.
 */
import type { Application, Revision } from "../api/mod.ts";

export const isKnownGood = (r: Revision) =>
  r.status?.conditions?.some((c) => c.type === "RolloutComplete" && c.status === "True") === true;

/** Whether the desired Revision has changed the cluster without completing: its rollout started part-way. */
export function desiredIsPartlyLive(app: Application, desired: Revision | undefined): boolean {
  return Boolean(
    desired && desired.metadata!.name !== app.status?.deployedRevision && desired.status?.startedAt &&
      desired.status.phase !== "Healthy",
  );
}

export type RollbackTarget = { revision: Revision } | { refused: string };

/**
 * The rollback target among the Application's Revisions (`revisions`), or why there is none.
 * `requested` names an explicit target; `lookup` finds a Revision of any Application in the namespace
 * (to say that a named Revision belongs to another one).
 */
export function rollbackTarget(
  app: Application,
  revisions: Revision[],
  requested?: string,
  lookup?: (name: string) => Revision | undefined,
): RollbackTarget {
  const name = app.metadata!.name!;
  const desiredName = app.status?.desiredRevision;
  const desired = revisions.find((r) => r.metadata!.name === desiredName);
  if (requested) {
    const r = revisions.find((x) => x.metadata!.name === requested) ?? lookup?.(requested);
    if (!r) {
      return { refused: `Revision ${requested} does not exist in namespace ${app.metadata!.namespace}` };
    }
    if (r.spec.applicationRef.name !== name) {
      return {
        refused: `Revision ${requested} belongs to Application ${r.spec.applicationRef.name}, not ${name}`,
      };
    }
    if (!isKnownGood(r)) {
      return {
        refused: `Revision ${requested} never rolled out Healthy (it is ${
          r.status?.phase ?? "Pending"
        }): only a known-good Revision can be rolled back to`,
      };
    }
    if (requested === desiredName && desired?.status?.phase === "Healthy") {
      return { refused: `Revision ${requested} is what Application ${name} runs already` };
    }
    return { revision: r };
  }
  const deployedIsCandidate = desiredIsPartlyLive(app, desired);
  const target = revisions
    .filter((r) =>
      isKnownGood(r) && r.metadata!.name !== desiredName &&
      (deployedIsCandidate || r.metadata!.name !== app.status?.deployedRevision)
    )
    .sort((a, b) => (b.status?.finishedAt ?? "").localeCompare(a.status?.finishedAt ?? ""))[0];
  return target ? { revision: target } : {
    refused: `no known-good Revision other than the desired${
      deployedIsCandidate ? "" : " and the deployed"
    } one to roll back to`,
  };
}
