/**
 * Retry. A retry request (the Application's retry-requested-at, newer than the one this Revision
 * handled) takes a Failed Revision with a retryable reason back to Applying: the next rollout attempt,
 * from the group where it stopped, under the same approval; the hook that failed runs again, succeeded
 * hooks do not. A reason only a new commit can fix (ValidationFailure) is refused (Event RetryRefused).
 */
import type { ReconcileResult } from "../../../../internal/k8s/workqueue.ts";
import { RETRY_REQUESTED_AT } from "../../api/mod.ts";
import { type RevisionContext, writeStatus } from "./context.ts";

/** The Failed phase; see the module comment. */
export async function retry(c: RevisionContext): Promise<ReconcileResult> {
  const { rev, app, o } = c;
  const requested = app.metadata?.annotations?.[RETRY_REQUESTED_AT];
  // Failed stays Failed (RolloutComplete False with the reason) until a new request.
  if (!requested || requested === rev.status?.lastHandledRetryAt) return {};
  const failure = rev.status?.failure;
  if (failure?.retryable === false) {
    await writeStatus(c, { lastHandledRetryAt: requested });
    await o.events.warning(
      rev,
      "RetryRefused",
      `${failure.reason} is not retried: it needs a change in Git (a new commit makes a new Revision)`,
    );
    return {};
  }
  const attempt = (rev.status?.rollout?.attempt ?? 1) + 1;
  await writeStatus(c, {
    phase: "Applying",
    failure: null,
    finishedAt: null,
    diagnosis: null,
    lastHandledRetryAt: requested,
    rollout: {
      attempt,
      group: rev.status?.rollout?.group ?? 0,
      selfHeal: rev.status?.rollout?.selfHeal ?? null,
    },
  });
  await o.events.normal(
    rev,
    "RetryStarted",
    `rollout attempt ${attempt} continues from where ${failure?.reason} stopped it`,
  );
  return { requeueAfterMs: 10 };
}
