/**
 * Approvals as the CLI asks for them: the refusals that say what to do instead (a Revision the
 * Application no longer wants, one that failed, a rollback target that is not known-good), and the
 * approval request, which the admission webhook records or refuses.
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import {
  type Application,
  APPROVE_DIGEST,
  APPROVED_DIGEST,
  APPROVED_REVISION,
  type Revision,
} from "../api/mod.ts";
import { rollbackTarget } from "../rollback/target.ts";
import { getRevision } from "./reads.ts";
import { annotate } from "./resources.ts";
import { failureText } from "./rollout_wait.ts";

/**
 * A Revision that cannot be approved, with what to do instead: one the Application no longer wants (the
 * approval would roll out nothing), and one that failed (an approval does not bring it back).
 */
export function refuseUnapprovable(app: Application, rev: Revision): void {
  const name = app.metadata!.name!;
  const revName = rev.metadata!.name!;
  const desired = app.status?.desiredRevision;
  if (rev.status?.phase === "Superseded" || revName !== desired) {
    throw new CliError(
      `Revision ${revName} is superseded: Application ${name} wants Revision ${desired ?? "(none)"} now; ` +
        `review and approve that one (gitsync plan ${name}; gitsync approve ${name})`,
    );
  }
  if (rev.status?.phase === "Failed") {
    const next = rev.status.failure?.retryable === false
      ? "it needs a fix in Git (a new commit makes a new Revision)"
      : `fix the cause, then gitsync retry ${name}; or roll back: gitsync rollback ${name}`;
    throw new CliError(`${failureText(rev)}\nthere is nothing to approve: ${next}`);
  }
}

/** Sets the approval request and returns the Application's annotations as the webhook left them. */
export async function requestApproval(
  client: KubeClient,
  app: Application,
  revision: string,
  digest: string,
): Promise<Record<string, string>> {
  const patch = (annotations: Record<string, string | null>) =>
    annotate<Application>(client, "applications", app.metadata!.namespace!, app.metadata!.name!, annotations);
  let after: Application;
  try {
    after = await patch({ [APPROVED_REVISION]: revision, [APPROVE_DIGEST]: digest });
  } catch (err) {
    const message = (err as { serverMessage?: string }).serverMessage;
    throw new CliError(`the approval was refused: ${message ?? (err as Error).message}`);
  }
  const a = after.metadata?.annotations ?? {};
  if (a[APPROVED_DIGEST] !== digest || a[APPROVED_REVISION] !== revision || APPROVE_DIGEST in a) {
    // No webhook answered (ENABLE_WEBHOOKS=false): take the request back rather than leave it lying.
    await patch({ [APPROVED_REVISION]: null, [APPROVE_DIGEST]: null }).catch(() => {});
    throw new CliError(
      "the approval webhook did not record the approval: is gitsync-manager running with its webhook " +
        "(not ENABLE_WEBHOOKS=false)? Nothing was approved",
    );
  }
  return a;
}

/** --to-revision must exist, belong to the Application and be known-good (the controller checks again). */
export async function checkRollbackTarget(client: KubeClient, app: Application, to: string) {
  const ns = app.metadata!.namespace!;
  let rev: Revision | undefined;
  try {
    rev = await getRevision(client, ns, to);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
  }
  const found = rollbackTarget(app, rev ? [rev] : [], to);
  if ("refused" in found) throw new CliError(`cannot roll back: ${found.refused}`);
}
