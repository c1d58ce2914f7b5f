/**
 * `gitsync revision <name>`: one Revision — its commit and service account, phase, plan digest and summary,
 * approval, hooks, failure and the diagnosis's first root cause.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, DescribeWriter, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
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
        printResult(io, withoutManagedFields(rev), flags.output, () => describeRevision(rev));
      });
    });
  addExamples(command, [
    "# The Revision gitsync get names as desired\ngitsync revision web-3f2a9c1d0b -n shop",
    "# Its plan, diffs included, as YAML\ngitsync revision web-3f2a9c1d0b -n shop -o yaml",
  ]);
}

/** Labels line up after the longest, "Service account:", below the hook list too. */
const LABELS = { minWidth: "Service account: ".length, padding: 1 };

/** `gitsync revision` as text. */
export function describeRevision(rev: Revision): string {
  const st = rev.status ?? {};
  const w = new DescribeWriter(LABELS);
  w.write(0, "Name:", `${rev.metadata!.namespace}/${rev.metadata!.name}`);
  w.write(0, "Application:", rev.spec.applicationRef.name);
  w.write(0, "Commit:", rev.spec.sourceRevision);
  w.write(0, "Service account:", rev.spec.serviceAccountName);
  w.write(0, "Phase:", st.phase ?? "Pending");
  if (st.plan) {
    const s = st.plan.summary;
    w.write(0, "Plan:", st.plan.digest);
    w.write(
      0,
      "",
      `${s.create} to create, ${s.update} to update, ${s.unchanged} unchanged, ${s.prune} to prune`,
    );
  }
  if (st.approval) {
    const a = st.approval;
    w.write(0, "Approved:", `by ${a.approvedBy} at ${a.approvedAt} (${a.planDigest})`);
  }
  if (st.startedAt) w.write(0, "Started:", st.startedAt);
  if (st.finishedAt) w.write(0, "Finished:", st.finishedAt);
  if (st.phase === "Applying" && st.rollout?.waitingFor) {
    const since = st.rollout.waitingSince ? ` (since ${st.rollout.waitingSince})` : "";
    w.write(0, "Waiting for:", `${st.rollout.waitingFor}${since}`);
  }
  const outcome = st.conditions?.find((c) => c.type === "RolloutComplete");
  if (outcome && !st.failure) {
    const done = outcome.status === "True" ? "complete" : "not complete";
    w.write(0, "Rollout:", `${done}, ${outcome.reason}: ${outcome.message}`);
  }
  if (st.hooks?.length) {
    w.write(0, "Hooks:");
    for (const h of st.hooks) w.write(1, `${h.stage.padEnd(9)} ${h.kind}/${h.name} ${h.state}`);
  }
  if (st.failure) w.write(0, "Failure:", `${st.failure.reason}: ${st.failure.message}`);
  const cause = st.diagnosis?.firstRootCause;
  if (cause) {
    w.write(
      0,
      "Root cause:",
      `${cause.reason}: ${cause.message} (gitsync diagnose ${rev.spec.applicationRef.name})`,
    );
  }
  return w.toString();
}
