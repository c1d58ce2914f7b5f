/**
 * Conditions, and what an Application's Ready and Drifted say after its desired Revision's rollout ends
 * (issue 37: status describes what is live and what failed). Ready follows the desired Revision: True
 * once it is deployed and Healthy, False with the failure's reason (HealthFailure, ApplyFailure,
 * RenderFailure, Forbidden, HookFailed...) when it fails, the message saying what is live then. Drifted
 * is about the deployed Revision: a failed rollout that got as far as applying objects has changed the
 * cluster, so it no longer matches the deployed Revision (True, reason RolloutFailed); a completed
 * rollout makes them match again (False, InSync). Pure functions over conditions lists.
 */
import type { Application, Condition, Revision } from "../api/mod.ts";

/** A condition list with `c` set; lastTransitionTime kept when the status did not change. */
export function setCondition(list: Condition[] | undefined, c: Condition, now: Date): Condition[] {
  const previous = list?.find((x) => x.type === c.type);
  const lastTransitionTime = previous && previous.status === c.status
    ? previous.lastTransitionTime
    : now.toISOString().replace(/\.\d{3}Z$/, "Z");
  return [...(list ?? []).filter((x) => x.type !== c.type), { ...c, lastTransitionTime }];
}

/**
 * `c` with its lastTransitionTime kept while its status and reason do not change (the Repository's and
 * ImagePolicy's conditions, written as a whole list).
 */
export function transitioned(list: Condition[] | undefined, c: Condition, now: Date): Condition {
  const previous = list?.find((x) => x.type === c.type);
  const same = previous?.status === c.status && previous?.reason === c.reason;
  return {
    ...c,
    lastTransitionTime: same && previous?.lastTransitionTime
      ? previous.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}

const find = (app: Application, type: string) => app.status?.conditions?.find((c) => c.type === type);

/** Ready True for the Revision just deployed; a Drifted that said otherwise is cleared. */
export function deployedConditions(
  app: Application,
  revision: string,
  ready: { reason: string; message: string },
  now: Date,
): Condition[] {
  let list = setCondition(app.status?.conditions, { type: "Ready", status: "True", ...ready }, now);
  const drifted = find(app, "Drifted");
  if (drifted && drifted.status !== "False") {
    list = setCondition(list, {
      type: "Drifted",
      status: "False",
      reason: "InSync",
      message: `the cluster matches Revision ${revision}, just rolled out`,
    }, now);
  }
  return list;
}

/**
 * Ready False with the failure's reason, saying what is live; Drifted True when the failed rollout had
 * applied objects (`changedCluster`) over a deployed Revision.
 */
export function failedConditions(
  app: Application,
  revision: string,
  failure: { reason: string; message: string },
  changedCluster: boolean,
  now: Date,
): Condition[] {
  const deployed = app.status?.deployedRevision;
  const live = !changedCluster
    ? deployed ? `Revision ${deployed} is still what runs` : "nothing is deployed yet"
    : deployed
    ? `its rollout stopped part-way: what it applied is live beside the rest of Revision ${deployed} ` +
      `(gitsync rollback ${app.metadata!.name} returns to ${deployed})`
    : "its rollout stopped part-way: what it applied is live";
  let list = setCondition(app.status?.conditions, {
    type: "Ready",
    status: "False",
    reason: failure.reason,
    message: `Revision ${revision} failed: ${failure.message}; ${live}`,
  }, now);
  if (changedCluster && deployed && deployed !== revision) {
    list = setCondition(list, {
      type: "Drifted",
      status: "True",
      reason: "RolloutFailed",
      message:
        `the failed rollout of Revision ${revision} changed the cluster: it no longer matches Revision ${deployed}`,
    }, now);
  }
  return list;
}

/** Ready while a rollback's rollout runs. */
export function rollingBackConditions(app: Application, revision: string, now: Date): Condition[] {
  return setCondition(app.status?.conditions, {
    type: "Ready",
    status: "Unknown",
    reason: "RollingBack",
    message: `rolling back to Revision ${revision}`,
  }, now);
}

/**
 * Ready from the desired Revision as it stands, for when the reason Ready last gave no longer holds
 * (SourceNotReady once the Repository has a commit; ServiceAccountRequired once one is set).
 */
export function readyFromRevision(
  app: Application,
  name: string,
  rev: Revision | undefined,
  now: Date,
): Condition[] {
  const phase = rev?.status?.phase;
  const failure = rev?.status?.failure;
  const ready: Condition = phase === "Healthy" && app.status?.deployedRevision === name
    ? {
      type: "Ready",
      status: "True",
      reason: "RolloutComplete",
      message: `Revision ${name} is deployed and Healthy`,
    }
    : phase === "Failed" && failure
    ? {
      type: "Ready",
      status: "False",
      reason: failure.reason,
      message: `Revision ${name} failed: ${failure.message}`,
    }
    : {
      type: "Ready",
      status: "Unknown",
      reason: "Progressing",
      message: `Revision ${name} is not rolled out yet (gitsync get ${app.metadata!.name} says where it is)`,
    };
  return setCondition(app.status?.conditions, ready, now);
}
