/**
 * `gitsync revision <name>`: one Revision — its commit and service account, phase, plan digest and summary,
 * approval, hooks, failure and the diagnosis's first root cause.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { withoutManagedFields } from "../../internal/k8s/table.ts";
import { readsOne } from "./kube.ts";
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
    );
  readsOne(command, io, ["<name>", "Revision name"], async ({ client, namespace }, name) => {
    const rev = await getRevision(client, namespace, name);
    return { document: withoutManagedFields(rev), text: () => describeRevision(rev) };
  });
  addExamples(command, [
    "# The Revision gitsync get names as desired\ngitsync revision web-3f2a9c1d0b -n shop",
    "# Its plan, diffs included, as YAML\ngitsync revision web-3f2a9c1d0b -n shop -o yaml",
  ]);
}
