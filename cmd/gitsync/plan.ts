/**
 * `gitsync plan <application>`: the redacted plan of the Revision the Application wants deployed. With
 * --wait (CI, right after `gitsync sync --wait`) it first waits until the Application wants the Revision of
 * the Repository's current commit and that Revision is planned.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { getApplication, getOne, OUTPUT_ENV, revisionOf, shortCommit, withSession } from "./kube.ts";
import { timeoutOption } from "./rollout_wait.ts";
import type { Plan, Repository, Revision } from "../../controller/gitsync/api/mod.ts";

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

/** Polls until the Revision meant is planned (a failure before any plan ends the wait with its reason). */
async function waitForPlan(
  client: KubeClient,
  namespace: string,
  name: string,
  explicit: string | undefined,
  timeoutMs: number,
): Promise<Revision> {
  const deadline = Date.now() + timeoutMs;
  let waitingFor = "";
  for (;;) {
    const app = await getApplication(client, namespace, name);
    const repo = await getOne<Repository>(
      client,
      "repositories",
      "Repository",
      namespace,
      app.spec.source.repositoryRef.name,
    ).catch(() => undefined);
    const commit = repo?.status?.artifact?.revision;
    const revName = explicit ?? app.status?.desiredRevision;
    const rev = revName ? await revisionOf(client, app, revName).catch(() => undefined) : undefined;
    const phase = rev?.status?.phase ?? "Pending";
    const current = explicit !== undefined || !commit || rev?.spec.sourceRevision === commit;
    if (rev && current && rev.status?.plan && phase !== "Pending" && phase !== "Planning") return rev;
    if (rev && current && phase === "Failed") {
      const f = rev.status?.failure;
      throw new CliError(
        `Revision ${rev.metadata!.name} failed before a plan${f ? `: ${f.reason}: ${f.message}` : ""}`,
      );
    }
    waitingFor = !rev
      ? `Application ${name} has no Revision yet`
      : !current
      ? `Application ${name} still wants Revision ${rev.metadata!.name} (commit ${
        shortCommit(rev.spec.sourceRevision)
      }), not one for commit ${shortCommit(commit)}`
      : `Revision ${rev.metadata!.name} is ${phase}`;
    if (Date.now() > deadline) throw new CliError(`no plan within ${timeoutMs / 1000} s: ${waitingFor}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
