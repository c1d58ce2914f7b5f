/**
 * `gitsync get` and `gitsync revision` as text, through internal/cli's describe writer: an Application
 * or a Revision as a person reads it, each label with its value, conditions and hooks indented below.
 */
import { DescribeWriter } from "../../../internal/cli/describe.ts";
import { formatAge } from "../../../internal/k8s/table.ts";
import type { Application, Revision } from "../api/mod.ts";
import { shortCommit } from "./text.ts";

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
