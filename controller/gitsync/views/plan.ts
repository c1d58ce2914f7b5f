/** `gitsync plan` as text: what happens to each object, then the redacted diffs. */
import type { Plan, Revision } from "../api/mod.ts";
import { shortCommit } from "./text.ts";

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
