/**
 * `gitsync revision <name>`: one Revision — its commit and service account, phase, plan digest and summary,
 * approval, hooks, failure and the diagnosis's first root cause.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { withoutManagedFields } from "../../internal/k8s/table.ts";
import { getRevision, OUTPUT_ENV, withSession } from "./kube.ts";
import type { Revision } from "../../controller/gitsync/api/mod.ts";

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
        printResult(io, withoutManagedFields(rev), flags.output, () => describe(rev));
      });
    });
  addExamples(command, [
    "# The Revision gitsync get names as desired\ngitsync revision web-3f2a9c1d0b -n shop",
    "# Its plan, diffs included, as YAML\ngitsync revision web-3f2a9c1d0b -n shop -o yaml",
  ]);
}

function describe(rev: Revision): string {
  const st = rev.status ?? {};
  const lines: string[] = [
    `Name:            ${rev.metadata!.namespace}/${rev.metadata!.name}`,
    `Application:     ${rev.spec.applicationRef.name}`,
    `Commit:          ${rev.spec.sourceRevision}`,
    `Service account: ${rev.spec.serviceAccountName}`,
    `Phase:           ${st.phase ?? "Pending"}`,
  ];
  if (st.plan) {
    const s = st.plan.summary;
    lines.push(
      `Plan:            ${st.plan.digest}`,
      `                 ${s.create} to create, ${s.update} to update, ${s.unchanged} unchanged, ${s.prune} to prune`,
    );
  }
  if (st.approval) {
    lines.push(
      `Approved:        by ${st.approval.approvedBy} at ${st.approval.approvedAt} (${st.approval.planDigest})`,
    );
  }
  if (st.startedAt) lines.push(`Started:         ${st.startedAt}`);
  if (st.finishedAt) lines.push(`Finished:        ${st.finishedAt}`);
  if (st.phase === "Applying" && st.rollout?.waitingFor) {
    lines.push(
      `Waiting for:     ${st.rollout.waitingFor}${
        st.rollout.waitingSince ? ` (since ${st.rollout.waitingSince})` : ""
      }`,
    );
  }
  const outcome = st.conditions?.find((c) => c.type === "RolloutComplete");
  if (outcome && !st.failure) {
    lines.push(
      `Rollout:         ${
        outcome.status === "True" ? "complete" : "not complete"
      }, ${outcome.reason}: ${outcome.message}`,
    );
  }
  if (st.hooks?.length) {
    lines.push("Hooks:");
    for (const h of st.hooks) lines.push(`  ${h.stage.padEnd(9)} ${h.kind}/${h.name} ${h.state}`);
  }
  if (st.failure) lines.push(`Failure:         ${st.failure.reason}: ${st.failure.message}`);
  const cause = st.diagnosis?.firstRootCause;
  if (cause) {
    lines.push(
      `Root cause:      ${cause.reason}: ${cause.message} (gitsync diagnose ${rev.spec.applicationRef.name})`,
    );
  }
  return lines.join("\n");
}
