/**
 * `gitsync revision <name>`: one Revision — its commit and service account, phase, plan digest and summary,
 * approval, hooks, failure and the diagnosis's first root cause.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { withoutManagedFields } from "../../internal/k8s/table.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { getRevision } from "../../controller/gitsync/client/mod.ts";
import { describeRevision } from "../../controller/gitsync/views/describe.ts";

export function registerRevision(program: Command, io: Io) {
  const command = program
    .command("revision")
    .summary(
      "Show one Revision: commit, phase, plan, approval, what it waits for, hooks, failure, root cause",
    )
    .description(
      "Show a Revision (names come from `gitsync history` and `gitsync get`): the commit and service account " +
        "it deploys, its phase, the plan digest and summary, who approved it and when, what its rollout waits " +
        "for, how the rollout ended, each hook with its stage and state, the failure, and the diagnosis's " +
        "first root cause. With -o json or yaml, the " +
        "Revision object itself (status.plan holds the redacted diffs).",
    )
    .argument("<name>", "Revision name")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const rev = await getRevision(client, namespace, name);
        printResult(io, withoutManagedFields(rev), flags.output, () => describeRevision(rev));
      });
    });
  addExamples(command, [
    "# The Revision gitsync get names as desired\ngitsync revision web-3f2a9c1d0b -n shop",
    "# Its plan, diffs included, as YAML\ngitsync revision web-3f2a9c1d0b -n shop -o yaml",
  ]);
}
