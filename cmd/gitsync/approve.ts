/**
 * `gitsync approve <application>`: approves exactly the plan shown. It sets approved-revision and
 * approve-digest on the Application; the admission webhook checks the digest against the Revision's
 * plan and records who approved (from the authenticated request) and when. With --wait it follows the
 * rollout to its end: exit 0 when Healthy, 1 as soon as it fails or its approval goes stale (the reason
 * printed), for CI pipelines. A Revision that failed, or that the Application no longer wants, is not
 * approved: the error says why and what to do instead.
 */
import type { Command } from "@commander-js/extra-typings";
import {
  addExamples,
  canPrompt,
  CliError,
  type Io,
  outputOption,
  printResult,
  promptLine,
} from "../../internal/cli/mod.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { followRollout, timeoutOption } from "./wait.ts";
import { APPROVED_BY } from "../../controller/gitsync/api/mod.ts";
import {
  getApplication,
  refuseUnapprovable,
  requestApproval,
  revisionOf,
} from "../../controller/gitsync/client/mod.ts";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function registerApprove(program: Command, io: Io) {
  const command = program
    .command("approve")
    .summary(
      "Approve the plan of an Application's Revision (exactly that plan), optionally waiting for the rollout",
    )
    .description(
      "Approve the Revision the Application wants deployed (or --revision). Prints the plan digest and its " +
        "summary and, in a terminal, asks before approving; then asks the admission webhook to record your " +
        "approval of exactly that digest: if the plan changed since you looked (--digest), the approval is " +
        "refused. Without a terminal (CI) pass --yes, or --digest, which is itself the confirmation; otherwise " +
        "approve exits 2 before touching the cluster. Who approved is taken from your credentials, never from " +
        "the command. With --wait, follows the rollout and exits 0 when the Revision is Healthy, 1 as soon as " +
        "it fails (with the reason and root cause), its plan changes and needs approving again " +
        "(ApprovalStale, with the new digest), a new commit supersedes it, or the timeout passes. A Revision " +
        "that failed or is superseded is not approved (exit 1, saying why); one already deployed and " +
        "Healthy needs no approval (exit 0).",
    )
    .argument("<application>", "Application name")
    .option("--revision <name>", "The Revision to approve (default: the one the Application wants deployed)")
    .option("--digest <sha256>", "Approve only if the plan still has this digest (from `gitsync plan`)")
    .option("-y, --yes", "Approve without asking (for CI; --digest also skips the question)", false)
    .option("--wait", "Wait for the rollout to finish; exit 1 if it fails", false)
    .option("--timeout <duration>", "How long --wait waits, e.g. 90s, 10m", "10m")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      if (flags.digest !== undefined && !DIGEST.test(flags.digest)) {
        cmd.error(`--digest must look like sha256:<64 hex digits>, not "${flags.digest}"`);
      }
      const timeoutMs = timeoutOption(cmd, flags.timeout);
      const ask = !flags.yes && flags.digest === undefined;
      if (ask && !canPrompt()) {
        cmd.error(
          "approve asks before approving and there is no terminal: pass --yes, or --digest from `gitsync plan`",
        );
      }
      await withSession(cmd, async ({ client, namespace }) => {
        const app = await getApplication(client, namespace, name);
        const rev = await revisionOf(client, app, flags.revision);
        const revName = rev.metadata!.name!;
        const plan = rev.status?.plan;
        const phase = rev.status?.phase ?? "Pending";
        refuseUnapprovable(app, rev);
        if (phase === "Healthy") {
          // Deployed already (its rollout completed, or its plan changed nothing): for CI, that is success.
          const message = `Revision ${revName} is deployed and Healthy: nothing to approve`;
          printResult(
            io,
            { application: name, namespace, revision: revName, phase },
            flags.output,
            () => message,
          );
          return;
        }
        if (!plan) {
          throw new CliError(`Revision ${revName} has no plan yet (phase ${phase}); try again shortly`);
        }
        if (phase !== "AwaitingApproval") {
          throw new CliError(
            `Revision ${revName} is ${phase}, not AwaitingApproval: there is nothing to approve`,
          );
        }
        if (flags.digest && flags.digest !== plan.digest) {
          throw new CliError(
            `the plan of Revision ${revName} is now ${plan.digest}, not ${flags.digest}: review it again (gitsync plan ${name})`,
          );
        }
        const s = plan.summary;
        io.stderr.write(
          `Plan ${plan.digest} of Revision ${revName}: ${s.create} to create, ${s.update} to update, ` +
            `${s.prune} to prune, ${s.unchanged} unchanged\n`,
        );
        if (
          ask &&
          !/^y(es)?$/i.test(await promptLine(`Approve it? (gitsync plan ${name} shows the diff) [y/N]`))
        ) {
          throw new CliError("not approved");
        }
        const approved = await requestApproval(client, app, revName, plan.digest);
        const result: Record<string, unknown> = {
          application: name,
          namespace,
          revision: revName,
          planDigest: plan.digest,
          approvedBy: approved[APPROVED_BY],
        };
        if (flags.wait) {
          await followRollout(io, flags.output, result, {
            client,
            namespace,
            revision: revName,
            timeoutMs,
            expect: { approvedDigest: plan.digest },
          });
          return;
        }
        printResult(io, result, flags.output, (r) => `Revision ${r.revision} approved by ${r.approvedBy}`);
      });
    });
  addExamples(command, [
    "# Look at the plan, then approve exactly it\ngitsync plan web -n shop\ngitsync approve web -n shop --digest sha256:…",
    "# In a CI pipeline: approve and wait for the rollout (exit 1 if it fails)\ngitsync approve web -n shop --yes --wait --timeout 15m",
  ]);
}
