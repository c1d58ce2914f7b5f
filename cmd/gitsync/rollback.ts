/**
 * `gitsync rollback <application>`: asks the controller to roll back (seed section 3) to the newest
 * known-good Revision other than the desired one and, unless the desired one's rollout stopped part-way
 * (then the deployed Revision is the last good state), the deployed one; or, with --to-revision, to the
 * known-good Revision named. The request is the annotation sync.gitsync.io/rollback-requested-at (with
 * sync.gitsync.io/rollback-to-revision); the webhook records who asked. The Application stays on that
 * Revision until its source moves to a new commit.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, printResult } from "../../internal/cli/mod.ts";
import { followRollout, followsRollout } from "./wait.ts";
import { ROLLBACK_REQUESTED_AT, ROLLBACK_TO_REVISION } from "../../controller/gitsync/api/mod.ts";
import { annotate, checkRollbackTarget, waitForRollbackTaken } from "../../controller/gitsync/client/mod.ts";

/** A Kubernetes object name (RFC 1123 subdomain). */
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function registerRollback(program: Command, io: Io) {
  const command = program
    .command("rollback")
    .summary("Roll an Application back to its last known-good Revision (or the one --to-revision names)")
    .description(
      "Request a rollback: the controller rolls out again (its hooks too) the newest Revision that once rolled " +
        "out Healthy, other than the one the Application wants; the deployed one is skipped too, unless the " +
        "wanted one's rollout stopped part-way (then what runs is partly the failed Revision, and the " +
        "deployed one is the last good state). --to-revision names the target instead: it must be a " +
        "Revision of this Application that once rolled out Healthy. The request counts as the approval of " +
        "the target while what it renders is unchanged; otherwise it waits for an approval (Event " +
        "ApprovalStale). The Application stays there until its Repository moves to a new commit. With " +
        "--wait, follows the rollout: exit 0 when Healthy, 1 as soon as it fails or needs an approval.",
    )
    .option("--to-revision <name>", "Roll back to this known-good Revision (from gitsync history)");
  followsRollout(command, async ({ client, namespace, name, app }, flags, timeoutMs) => {
    const to = flags.toRevision;
    if (to !== undefined) await checkRollbackTarget(client, app, to);
    const requestedAt = new Date().toISOString();
    await annotate(client, "applications", namespace, name, {
      [ROLLBACK_REQUESTED_AT]: requestedAt,
      [ROLLBACK_TO_REVISION]: to ?? null,
    });
    // The controller answers in the Application's status.rollback.
    const deadline = Date.now() + Math.min(timeoutMs, 60_000);
    const rollback = await waitForRollbackTaken(client, namespace, name, requestedAt, deadline);
    if (!rollback.revision) throw new CliError(`cannot roll back: ${rollback.message ?? "no target"}`);
    const target = rollback.revision;
    io.stderr.write(`Rolling back Application ${namespace}/${name} to Revision ${target}\n`);
    const result: Record<string, unknown> = { application: name, namespace, ...rollback };
    if (flags.wait) {
      await followRollout(io, flags.output, result, { client, namespace, revision: target, timeoutMs });
      return;
    }
    printResult(io, result, flags.output, (r) => `rollback to Revision ${r.revision} requested`);
  }, (flags, cmd) => {
    const to = flags.toRevision;
    if (to !== undefined && !NAME.test(to)) cmd.error(`--to-revision must be a Revision name, not "${to}"`);
  });
  addExamples(command, [
    "# Roll Application web back and wait for it\ngitsync rollback web -n shop --wait",
    "# Back to a Revision named in the history\ngitsync history web -n shop\ngitsync rollback web -n shop --to-revision web-3f2a9c1d0b --wait",
  ]);
}
