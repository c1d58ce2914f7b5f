/**
 * `gitsync rollback <application>`: asks the controller to roll back to the newest known-good
 * Revision other than the desired and the deployed one (seed section 3). The request is the
 * annotation sync.gitsync.io/rollback-requested-at; the webhook records who asked. The Application
 * stays on that Revision until its source moves to a new commit.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { ROLLBACK_REQUESTED_AT } from "../../controller/gitsync/approval/review.ts";
import type { Application } from "../../controller/gitsync/reconcilers/application.ts";
import { collection, getApplication, OUTPUT_ENV, withSession } from "./kube.ts";
import { outcome, timeoutOption, waitForRollout } from "./rollout_wait.ts";

export function registerRollback(program: Command, io: Io) {
  const command = program
    .command("rollback")
    .summary(
      "Roll an Application back to its newest known-good Revision other than the desired and deployed one",
    )
    .description(
      "Request a rollback: the controller picks the newest Revision that rolled out Healthy, other than the one " +
        "the Application wants and the one deployed, and rolls it out again (its hooks too). The request counts " +
        "as the approval of that Revision while what it renders is unchanged; otherwise it waits for an approval " +
        "(Event ApprovalStale). The Application stays there until its Repository moves to a new commit. " +
        "With --wait, follows the rollout: exit 0 when Healthy, 1 when it fails.",
    )
    .argument("<application>", "Application name")
    .option("--wait", "Wait for the rollback's rollout to finish; exit 1 if it fails", false)
    .option("--timeout <duration>", "How long to wait, e.g. 90s, 10m", "10m")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      const timeoutMs = await timeoutOption(cmd, flags.timeout);
      await withSession(cmd, async ({ client, namespace }) => {
        await getApplication(client, namespace, name);
        const requestedAt = new Date().toISOString();
        await client.request({
          method: "PATCH",
          path: `${collection("applications", namespace)}/${name}`,
          contentType: "application/merge-patch+json",
          body: { metadata: { annotations: { [ROLLBACK_REQUESTED_AT]: requestedAt } } },
        });
        // The controller answers in the Application's status.rollback.
        const deadline = Date.now() + Math.min(timeoutMs, 60_000);
        let rollback: NonNullable<Application["status"]>["rollback"];
        for (;;) {
          rollback = (await getApplication(client, namespace, name)).status?.rollback;
          if (rollback?.requestedAt === requestedAt) break;
          if (Date.now() > deadline) {
            throw new CliError(
              `the controller has not taken up the rollback request yet: is gitsync-manager running?`,
            );
          }
          await new Promise((r) => setTimeout(r, 500));
        }
        if (!rollback.revision) throw new CliError(`cannot roll back: ${rollback.message ?? "no target"}`);
        io.stderr.write(`Rolling back Application ${namespace}/${name} to Revision ${rollback.revision}\n`);
        const result: Record<string, unknown> = { application: name, namespace, ...rollback };
        if (flags.wait) {
          const end = await waitForRollout(
            client,
            namespace,
            rollback.revision,
            timeoutMs,
            (line) => io.stderr.write(`${line}\n`),
          );
          result.phase = end.status?.phase;
          if (end.status?.phase !== "Healthy") {
            if (flags.output !== "table") printResult(io, result, flags.output, () => "");
            throw new CliError(outcome(end));
          }
          printResult(io, result, flags.output, () => outcome(end));
          return;
        }
        printResult(io, result, flags.output, (r) => `rollback to Revision ${r.revision} requested`);
      });
    });
  addExamples(command, [
    "# Roll Application web back and wait for it\ngitsync rollback web -n shop --wait",
  ]);
}
