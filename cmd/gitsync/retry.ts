/**
 * `gitsync retry <application>`: rolls a Failed Revision out again (seed section 3: "failed → retry → the
 * hook that failed runs again; succeeded hooks do not rerun"). The request is the annotation
 * sync.gitsync.io/retry-requested-at on the Application; the controller continues the rollout from the
 * group where it stopped, as the next attempt, under the approval it already had. A failure that needs a
 * change in Git (ValidationFailure) is not retried.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, printResult } from "../../internal/cli/mod.ts";
import { followRollout, followsRollout } from "./wait.ts";
import { RETRY_REQUESTED_AT } from "../../controller/gitsync/api/mod.ts";
import { annotate, revisionOf, waitForRetryTaken } from "../../controller/gitsync/client/mod.ts";

export function registerRetry(program: Command, io: Io) {
  const command = program
    .command("retry")
    .summary("Roll a Failed Revision out again: the failed hook reruns, what succeeded stays done")
    .description(
      "Retry the Revision the Application wants deployed after it failed (HookFailed, Forbidden, " +
        "ConflictFailure, a failed apply...): the controller continues its rollout from the group where it " +
        "stopped, as the next attempt, under the approval it already had; the hook that failed runs again and " +
        "hooks that succeeded do not. Fix the cause first (RBAC, a conflicting owner, what the hook needs). A " +
        "ValidationFailure is not retried: it needs a new commit. With --wait, follows the rollout: exit 0 when " +
        "Healthy, 1 as soon as it fails again (with the reason and root cause) or a new commit supersedes it.",
    );
  followsRollout(command, async ({ client, namespace, name, app }, flags, timeoutMs) => {
    const rev = await revisionOf(client, app);
    const revName = rev.metadata!.name!;
    const failure = rev.status?.failure;
    if (rev.status?.phase !== "Failed") {
      throw new CliError(
        `Revision ${revName} is ${rev.status?.phase ?? "Pending"}, not Failed: nothing to retry`,
      );
    }
    if (failure?.retryable === false) {
      throw new CliError(
        `Revision ${revName} failed with ${failure.reason}, which a retry cannot fix: push a fix`,
      );
    }
    const requestedAt = new Date().toISOString();
    await annotate(client, "applications", namespace, name, { [RETRY_REQUESTED_AT]: requestedAt });
    io.stderr.write(`Retrying Revision ${revName} (it failed with ${failure?.reason})\n`);
    const result: Record<string, unknown> = {
      application: name,
      namespace,
      revision: revName,
      requestedAt,
    };
    if (!flags.wait) {
      printResult(io, result, flags.output, () => `retry of Revision ${revName} requested`);
      return;
    }
    // The controller takes the request up first (lastHandledRetryAt), then the rollout runs.
    await waitForRetryTaken(
      client,
      namespace,
      revName,
      requestedAt,
      Date.now() + Math.min(timeoutMs, 60_000),
    );
    await followRollout(io, flags.output, result, {
      client,
      namespace,
      revision: revName,
      timeoutMs,
      expect: { approvedDigest: rev.status?.approval?.planDigest },
    });
  });
  addExamples(command, [
    "# After fixing what the migration hook needed\ngitsync retry web -n shop --wait",
  ]);
}
