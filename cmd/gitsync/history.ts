/** `gitsync history <application>`: its retained Revisions, newest first, with who approved what. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { formatAge } from "../../internal/k8s/table.ts";
import { APPLICATION_ARG, readsOne } from "./kube.ts";
import { getApplication, listAll } from "../../controller/gitsync/client/mod.ts";
import { shortCommit } from "../../controller/gitsync/views/text.ts";
import { APPLICATION_LABEL, type Revision } from "../../controller/gitsync/api/mod.ts";

const outcomeOf = (r: Revision) =>
  r.status?.failure?.reason ?? r.status?.conditions?.find((c) => c.type === "RolloutComplete")?.reason;

function phaseCell(phase: string, reason: string | undefined): string {
  if (phase === "Failed" && reason) return `Failed (${reason})`;
  if (phase === "Healthy" && reason === "NoChanges") return "Healthy (no changes)";
  return phase;
}

export function registerHistory(program: Command, io: Io) {
  const command = program
    .command("history")
    .summary("List an Application's deployment attempts: commit, outcome, who approved which plan")
    .description(
      "List the Revisions gitsync keeps for the Application (spec.history.limit), newest first: the commit, " +
        "the phase it reached (Failed with its reason; Healthy (no changes) for a plan that changed nothing " +
        "and so needed no approval or rollout; Superseded for one the Application stopped wanting before it " +
        "finished), who approved it and when, and the plan digest approved. The desired and the " +
        "deployed Revision are marked. With -o json or yaml the list is an audit export: each Revision's " +
        "status.approval, failure and times.",
    );
  readsOne(command, io, APPLICATION_ARG, async ({ client, namespace }, name) => {
    const app = await getApplication(client, namespace, name);
    const revisions = (await listAll<Revision>(
      client,
      "revisions",
      "Revision",
      namespace,
      `${APPLICATION_LABEL}=${name}`,
    )).sort((a, b) =>
      (b.metadata!.creationTimestamp ?? "").localeCompare(a.metadata!.creationTimestamp ?? "") ||
      b.metadata!.name!.localeCompare(a.metadata!.name!)
    );
    const mark = (r: Revision) =>
      [
        r.metadata!.name === app.status?.desiredRevision ? "desired" : "",
        r.metadata!.name === app.status?.deployedRevision ? "deployed" : "",
      ].filter(Boolean).join(",");
    const items = revisions.map((r) => ({
      revision: r.metadata!.name!,
      sourceRevision: r.spec.sourceRevision,
      serviceAccountName: r.spec.serviceAccountName,
      phase: r.status?.phase ?? "Pending",
      // How its rollout ended (RolloutComplete's reason): NoChanges, Superseded, the failure's reason...
      ...(outcomeOf(r) ? { reason: outcomeOf(r) } : {}),
      ...(mark(r) ? { current: mark(r) } : {}),
      ...(r.status?.approval ? { approval: r.status.approval } : {}),
      ...(r.status?.failure ? { failure: r.status.failure } : {}),
      ...(r.status?.startedAt ? { startedAt: r.status.startedAt } : {}),
      ...(r.status?.finishedAt ? { finishedAt: r.status.finishedAt } : {}),
      createdAt: r.metadata!.creationTimestamp,
    }));
    const now = new Date();
    const document = { application: name, namespace, items };
    return {
      document,
      text: {
        headers: ["revision", "commit", "phase", "current", "approved by", "approved", "digest", "age"],
        rows: () =>
          items.map((i) => [
            i.revision,
            shortCommit(i.sourceRevision),
            phaseCell(i.phase, i.reason),
            i.current,
            i.approval?.approvedBy,
            i.approval?.approvedAt ? formatAge(i.approval.approvedAt, now) : undefined,
            i.approval?.planDigest?.slice(0, 19),
            formatAge(i.createdAt, now),
          ]),
        empty: `No Revisions of Application ${namespace}/${name} yet.`,
      },
    };
  });
  addExamples(command, [
    "# The deployment attempts of Application web\ngitsync history web -n shop",
    "# Export who approved what, for an audit\ngitsync history web -n shop -o json",
  ]);
}
