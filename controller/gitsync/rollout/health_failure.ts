/**
 * When a wave's objects fail their Revision (seed section 3; issue 37): an object that turns Degraded
 * fails the wave at once (reason HealthFailure), and an object that stays short of Healthy fails it once
 * the Application's health timeout (spec.healthTimeout) has passed since the wave began waiting. A
 * Deployment keeps its own clock: its progressDeadlineSeconds, after which the deployment controller
 * reports ProgressDeadlineExceeded and the Deployment turns Degraded; the health timeout never cuts
 * it short. A ProgressDeadlineExceeded from before the wave began (the rollout this one replaces, e.g.
 * a rollback from it) is not this rollout's: the controller keeps that condition until the Deployment
 * progresses again, so it counts only once the deadline has passed for this wave too. Pure: the rollout
 * step gives the wave's health and the time, this module gives the verdict.
 */
import { humanDuration, type KubeObject } from "../../../internal/k8s/mod.ts";
import type { Health } from "../health/assess.ts";
import { RolloutFailure } from "./apply.ts";
import type { Diagnosis } from "../api/mod.ts";

export interface AssessedObject {
  /** The live object (kind and apiVersion set). */
  object: KubeObject;
  health: Health;
}

export type WaveVerdict =
  | { outcome: "healthy" }
  | { outcome: "waiting"; waitingFor: string; unhealthy: KubeObject[] }
  | { outcome: "failed"; failure: RolloutFailure; unhealthy: KubeObject[] };

export interface WaveClock {
  /** When the wave began waiting (status.rollout.waitingSince); undefined: it begins now. */
  since?: string;
  now: Date;
  /** The Application's health timeout in milliseconds. */
  timeoutMs: number;
}

export const objectRef = (o: KubeObject) =>
  `${o.kind}/${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`;

/** Whether the object fails on a deadline of its own rather than the Application's health timeout. */
export function hasOwnDeadline(o: KubeObject): boolean {
  const spec = o.spec as { progressDeadlineSeconds?: unknown } | undefined;
  return o.kind === "Deployment" && typeof spec?.progressDeadlineSeconds === "number";
}

const resourceOf = (o: KubeObject) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
  name: o.metadata?.name,
});

const said = (h: Health) => `${h.status}${h.message ? ` (${h.message})` : ""}`;

/**
 * When the Deployment's ProgressDeadlineExceeded predates the wave (or the wave has not waited yet), the
 * time its deadline still allows this wave in milliseconds; undefined when it is not such a condition.
 */
function earlierDeadline(o: KubeObject, clock: WaveClock, waited: number): number | undefined {
  const conditions = (o.status as { conditions?: Record<string, string>[] } | undefined)?.conditions;
  const c = conditions?.find((x) => x.type === "Progressing" && x.reason === "ProgressDeadlineExceeded");
  if (!c || !hasOwnDeadline(o)) return undefined;
  const at = Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? "");
  if (clock.since && at >= Date.parse(clock.since)) return undefined;
  const deadline = (o.spec as { progressDeadlineSeconds: number }).progressDeadlineSeconds * 1000;
  return Math.max(0, deadline - Math.max(waited, 0));
}

/** The verdict on a wave whose objects were just applied and assessed. */
export function judgeWave(assessed: AssessedObject[], clock: WaveClock): WaveVerdict {
  // The clock starts when the wave first waits: a wave that has not waited yet is never overdue.
  const waited = clock.since ? clock.now.getTime() - Date.parse(clock.since) : -1;
  const judged = assessed.map((a) => {
    const left = a.health.status === "Degraded" ? earlierDeadline(a.object, clock, waited) : undefined;
    return left
      ? {
        ...a,
        health: {
          status: "Progressing" as const,
          message: `${a.health.message} (from before this rollout, whose own deadline ends in ${
            humanDuration(left)
          })`,
        },
      }
      : a;
  });
  const unhealthy = judged.filter((a) => a.health.status !== "Healthy");
  if (!unhealthy.length) return { outcome: "healthy" };
  const objects = unhealthy.map((a) => a.object);
  const degraded = unhealthy.find((a) => a.health.status === "Degraded");
  if (degraded) {
    return {
      outcome: "failed",
      failure: new RolloutFailure(
        "HealthFailure",
        `${objectRef(degraded.object)} is Degraded${
          degraded.health.message ? `: ${degraded.health.message}` : ""
        }`,
        resourceOf(degraded.object),
        true,
      ),
      unhealthy: objects,
    };
  }
  const overdue = waited >= clock.timeoutMs ? unhealthy.find((a) => !hasOwnDeadline(a.object)) : undefined;
  if (overdue) {
    return {
      outcome: "failed",
      failure: new RolloutFailure(
        "HealthFailure",
        `${objectRef(overdue.object)} is not Healthy after ${
          humanDuration(clock.timeoutMs)
        } (spec.healthTimeout): ${said(overdue.health)}`,
        resourceOf(overdue.object),
        true,
      ),
      unhealthy: objects,
    };
  }
  const first = unhealthy[0]!;
  return {
    outcome: "waiting",
    waitingFor: `${objectRef(first.object)}: ${said(first.health)}`,
    unhealthy: objects,
  };
}

/** A HealthFailure's message with the diagnosis' first root cause, which is what a person acts on. */
export function withRootCause(message: string, diagnosis: Diagnosis | undefined): string {
  const cause = diagnosis?.firstRootCause;
  if (!cause) return message;
  const r = cause.resource;
  return `${message}; root cause ${cause.reason}: ${r.kind}/${r.name}: ${cause.message}`;
}
