/**
 * `gitsync get <application>` (alias `status`): one Application in full — source, sync settings, the
 * desired and deployed Revisions with their phases, the plan waiting for approval, the failure, and every
 * condition — the first thing to run when something looks wrong.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, DescribeWriter, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { formatAge, withoutManagedFields } from "../../internal/k8s/table.ts";
import { getApplication, getRevision, OUTPUT_ENV, shortCommit, withSession } from "./kube.ts";
import type { Application, Revision } from "../../controller/gitsync/api/mod.ts";

export function registerGet(program: Command, io: Io) {
  const command = program
    .command("get")
    .alias("status")
    .summary("Show one Application: source, sync settings, desired and deployed Revision, conditions")
    .description(
      "Show an Application as a person reads it: where it renders from, how it syncs and as which service " +
        "account, the commit it follows, the Revision it wants deployed (its phase, and the plan digest when " +
        "it waits for approval, what its rollout waits for, or the failure and its root cause) and the one " +
        "deployed, then each condition with its reason and message. With -o json or yaml, the Application " +
        "object itself.",
    )
    .argument("<application>", "Application name")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const app = await getApplication(client, namespace, name);
        const revision = async (n: string | undefined) =>
          n ? await getRevision(client, namespace, n).catch(() => undefined) : undefined;
        const desired = await revision(app.status?.desiredRevision);
        const deployed = app.status?.deployedRevision === app.status?.desiredRevision
          ? desired
          : await revision(app.status?.deployedRevision);
        printResult(
          io,
          withoutManagedFields(app),
          flags.output,
          () => describeApplication(app, desired, deployed, new Date()),
        );
      });
    });
  addExamples(command, [
    "# How is Application web doing?\ngitsync get web -n shop",
    "# The same, as the object\ngitsync status web -n shop -o yaml",
  ]);
}

/** `gitsync get` as text; ages are measured from `now`. */
export function describeApplication(
  app: Application,
  desired: Revision | undefined,
  deployed: Revision | undefined,
  now: Date,
): string {
  const s = app.spec;
  const lines: [string, string | undefined][] = [
    ["Name", `${app.metadata!.namespace}/${app.metadata!.name}`],
    ["Source", `Repository ${s.source.repositoryRef.name}, path ${s.source.path || "."}`],
    ["Renderer", s.source.render?.type ?? "detected (kustomize when the path has a kustomization)"],
    ["Commit", shortCommit(app.status?.sourceRevision) || "(not fetched yet)"],
    [
      "Sync",
      [
        s.sync?.automatic ? "automatic" : "on approval",
        s.sync?.selfHeal ? "self-heal" : "",
        s.sync?.prune === false ? "no prune" : "",
        s.suspend ? "SUSPENDED" : "",
      ].filter(Boolean).join(", "),
    ],
    ["Service account", s.serviceAccountName ?? "(the manager's default)"],
    ["Desired", revisionLine(desired, app.status?.desiredRevision)],
    ["Deployed", revisionLine(deployed, app.status?.deployedRevision)],
  ];
  const plan = desired?.status?.phase === "AwaitingApproval" ? desired.status.plan : undefined;
  if (plan) {
    lines.push([
      "Plan",
      `${plan.digest}: ${plan.summary.create} to create, ${plan.summary.update} to update, ${plan.summary.prune} to prune ` +
      `(gitsync plan ${app.metadata!.name}; gitsync approve ${app.metadata!.name} --digest ${plan.digest})`,
    ]);
  }
  const waitingFor = desired?.status?.phase === "Applying" ? desired.status.rollout?.waitingFor : undefined;
  if (waitingFor) lines.push(["Waiting for", waitingFor]);
  const failure = desired?.status?.failure;
  if (failure) lines.push(["Failure", `${failure.reason}: ${failure.message}`]);
  const cause = desired?.status?.diagnosis?.firstRootCause;
  if (cause && !failure?.message.includes(cause.message)) {
    lines.push([
      "Root cause",
      `${cause.reason}: ${cause.resource.kind}/${cause.resource.name}: ${cause.message}`,
    ]);
  }
  const w = new DescribeWriter({ minWidth: 0, padding: 1 });
  for (const [label, value] of lines) w.write(0, `${label}:`, value ?? "");
  w.write(0, "Conditions:");
  for (const c of app.status?.conditions ?? []) {
    const age = c.lastTransitionTime ? ` (${formatAge(c.lastTransitionTime, now)} ago)` : "";
    w.write(1, `${c.type}=${c.status} ${c.reason ?? ""}${age}`);
    if (c.message) w.write(2, c.message);
  }
  if (!app.status?.conditions?.length) w.write(1, "(none yet)");
  return w.toString();
}

function revisionLine(rev: Revision | undefined, name: string | undefined): string {
  if (!name) return "(none)";
  if (!rev) return `${name} (not found)`;
  return `${name}, ${rev.status?.phase ?? "Pending"}, commit ${shortCommit(rev.spec.sourceRevision)}`;
}
