/** `gitsync diagnose` as text: the failure, what the rollout waits for, each root cause with its chain. */
import { formatAge } from "../../../internal/k8s/table.ts";
import type { Diagnosis, ObjectRef, Revision } from "../api/mod.ts";

const step = (r: ObjectRef) => `${r.kind}/${r.name}`;

export interface DiagnoseResult {
  revision: string;
  phase: string;
  failure?: NonNullable<Revision["status"]>["failure"];
  waitingFor?: string;
  diagnosis?: Diagnosis;
}

export function formatDiagnosis(r: DiagnoseResult): string {
  const d = r.diagnosis;
  const head = `Revision ${r.revision} (${r.phase})`;
  const lines: string[] = [];
  if (r.failure) lines.push(`${head} failed: ${r.failure.reason}: ${r.failure.message}`);
  if (r.waitingFor) lines.push(`${head} waits for ${r.waitingFor}`);
  if (!d?.causes.length) return lines.length ? lines.join("\n") : `${head}: nothing diagnosed`;
  const summary = `${d.causes.length} root cause${d.causes.length > 1 ? "s" : ""}, diagnosed ${
    formatAge(d.diagnosedAt)
  } ago`;
  if (lines.length) lines.push("", summary);
  else lines.push(`${head}: ${summary}`);
  for (const c of d.causes) {
    lines.push("", `${c.reason}  ${c.chain.map(step).join(" → ")}`, `  ${c.message}`);
  }
  return lines.join("\n");
}
