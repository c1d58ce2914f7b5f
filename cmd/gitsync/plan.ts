/** `gitsync plan <application>`: the redacted plan of the Revision the Application wants deployed. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { Plan } from "../../controller/gitsync/plan/plan.ts";
import type { Revision } from "../../controller/gitsync/reconcilers/revision.ts";
import { getApplication, OUTPUT_ENV, revisionOf, shortCommit, withSession } from "./kube.ts";

/** The plan as people read it: what happens to each object, then the diffs. */
export function formatPlan(rev: Revision, plan: Plan, diffs: boolean): string {
  const s = plan.summary;
  const lines = [
    `Revision ${rev.metadata!.name} (commit ${
      shortCommit(rev.spec.sourceRevision)
    }, as ${rev.spec.serviceAccountName}): ${rev.status?.phase ?? "Pending"}`,
    `Plan ${plan.digest}`,
    `  ${s.create} to create, ${s.update} to update, ${s.unchanged} unchanged, ${s.prune} to prune` +
    (s.pruneSkipped ? `, ${s.pruneSkipped} kept from pruning` : ""),
    "",
    ...plan.entries.map((e) =>
      `  ${e.action.padEnd(13)} ${e.kind}/${e.namespace ? `${e.namespace}/` : ""}${e.name}`
    ),
  ];
  if (diffs) {
    for (const e of plan.entries) if (e.diff) lines.push("", e.diff.trimEnd());
    if (plan.truncated) {
      lines.push("", "(later diffs left out: the plan is over its size budget; the digest covers them)");
    }
  }
  return lines.join("\n");
}

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
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const app = await getApplication(client, namespace, name);
        const rev = await revisionOf(client, app, flags.revision);
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
    "# The objects only\ngitsync plan web --no-diff",
    "# The plan as JSON (digest, summary, entries with diffs)\ngitsync plan web -o json",
  ]);
}
