/**
 * `gitsync plan <application>`: the redacted plan of the Revision the Application wants deployed. With
 * --wait (CI, right after `gitsync sync --wait`) it first waits until the Application wants the Revision of
 * the Repository's current commit and that Revision is planned.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { timeoutOption } from "./wait.ts";
import { getApplication, revisionOf, waitForPlan } from "../../controller/gitsync/client/mod.ts";
import { formatPlan } from "../../controller/gitsync/views/plan.ts";

export function registerPlan(program: Command, io: Io) {
  const command = program
    .command("plan")
    .summary("Show the plan of an Application's Revision: what changes, with redacted diffs")
    .description(
      "Print the plan gitsync-manager computed for the Revision the Application wants deployed (or --revision): " +
        "create, update, unchanged, prune and kept-from-pruning per object, and a unified diff of each change " +
        "against the live object. Secret values are never shown and every diff is redacted. The digest is what " +
        "an approval binds to: `gitsync approve <application> --digest <digest>` approves exactly this plan.",
    )
    .argument("<application>", "Application name")
    .option("--revision <name>", "A Revision of the Application other than the one it wants deployed")
    .option("--no-diff", "List the objects only, without diffs")
    .option(
      "--wait",
      "Wait until the Application wants the Revision of its Repository's current commit and it is planned",
      false,
    )
    .option("--timeout <duration>", "How long --wait waits, e.g. 30s, 5m", "2m")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      const timeoutMs = timeoutOption(cmd, flags.timeout);
      await withSession(cmd, async ({ client, namespace }) => {
        const rev = flags.wait
          ? await waitForPlan(client, namespace, name, flags.revision, timeoutMs)
          : await revisionOf(client, await getApplication(client, namespace, name), flags.revision);
        const plan = rev.status?.plan;
        if (!plan) {
          throw new CliError(
            `Revision ${rev.metadata!.name} has no plan yet (phase ${rev.status?.phase ?? "Pending"})`,
          );
        }
        const result = {
          application: name,
          namespace,
          revision: rev.metadata!.name,
          sourceRevision: rev.spec.sourceRevision,
          phase: rev.status?.phase,
          plan,
        };
        printResult(io, result, flags.output, () => formatPlan(rev, plan, flags.diff));
      });
    });
  addExamples(command, [
    "# What approving Application web would change\ngitsync plan web -n shop",
    "# In CI after a push: fetch, wait for the new commit's plan, show it\n" +
    "gitsync sync web -n shop --wait && gitsync plan web -n shop --wait",
    "# The objects only\ngitsync plan web --no-diff",
    "# The plan as JSON (digest, summary, entries with diffs)\ngitsync plan web -o json",
  ]);
}
