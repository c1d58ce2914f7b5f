/**
 * When a Revision's diagnosis is taken again (seed section 6, Event Diagnosed): while a wave waits, at most
 * every 10 s; when a rollout fails, at once. A diagnosis whose causes equal the recorded ones is not
 * returned (nothing to write); a new one names its first root cause in Event Diagnosed.
 */
import type { EventRecorder, KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { diagnose } from "./diagnose.ts";
import type { Diagnosis, Revision } from "../api/mod.ts";

export interface FreshDiagnosisOptions {
  /** Impersonates the Application's service account. */
  sa: KubeClient;
  events: EventRecorder;
  redact: (text: string) => string;
  now: Date;
  /** Diagnose now, however recent the last diagnosis is (a failure). */
  force?: boolean;
}

export async function freshDiagnosis(
  rev: Revision,
  unhealthy: KubeObject[],
  o: FreshDiagnosisOptions,
): Promise<Diagnosis | undefined> {
  const last = rev.status?.diagnosis;
  if (!o.force && last && o.now.getTime() - Date.parse(last.diagnosedAt) < 10_000) return undefined;
  const d = await diagnose(o.sa, rev.metadata!.namespace!, unhealthy, o.redact, o.now);
  if (JSON.stringify(d.causes) === JSON.stringify(last?.causes ?? [])) return undefined;
  if (d.firstRootCause) {
    const r = d.firstRootCause.resource;
    await o.events.warning(
      rev,
      "Diagnosed",
      `${d.firstRootCause.reason}: ${r.kind}/${r.name}: ${d.firstRootCause.message}`,
    );
  }
  return d;
}
