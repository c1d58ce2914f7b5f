/**
 * One step of a Revision's rollout (seed sections 1.3 and 3): applies the current group as the
 * service account and advances only when every object in it is Healthy: pre-sync hooks, then each
 * sync wave, then prune, then post-sync hooks. The reconciler calls `rolloutStep` until it reports
 * `complete` or `failed`, persisting `RolloutState` in the Revision's status between calls, so a
 * restarted or failed-over manager resumes where the last one stopped.
 *
 * A wave whose objects turn Degraded, or stay short of Healthy past the health timeout, fails the
 * Revision with HealthFailure (health_failure.ts); later groups are not applied.
 *
 * Hook rules: a hook runs once per rollout (created only while Pending in this rollout, so a
 * succeeded hook that ttlSecondsAfterFinished removed is neither rerun nor drift); a failed hook fails
 * the Revision with HookFailed naming it, and later groups are not applied; a hook deleted while it
 * runs fails the Revision; a retry reruns only the failed hook; hook objects of an earlier rollout are
 * deleted before this rollout creates them again. Each hook object carries the rollout it belongs to
 * (annotation sync.gitsync.io/hook-rollout), so a step that reads a stale status, or follows a crash
 * between creating a hook and recording it, recognises its own hook instead of replacing it.
 */
import { inSpan } from "../tracing.ts";
import {
  deleteObject,
  discoveryFor,
  getObject,
  isKubeApiError,
  type KubeClient,
  type KubeObject,
} from "../../../internal/k8s/mod.ts";
import { assessHealth } from "../health/assess.ts";
import { applyObjects, RolloutFailure } from "./apply.ts";
import type { Group } from "./groups.ts";
import { type AssessedObject, judgeWave } from "./health_failure.ts";
import { planPrune } from "./prune.ts";
import { DEFAULT_HEALTH_TIMEOUT_MS, HOOK_ROLLOUT_ANNOTATION, type HookStatus } from "../api/mod.ts";

/** What the Revision keeps between steps. */
export interface RolloutState {
  /** Rollout attempt: a fresh approval or a retry starts the next. */
  rollout: number;
  /** Index into the groups of the group being applied. */
  group: number;
  hooks: HookStatus[];
  /** When the current wave began waiting for its objects (the health timeout counts from it). */
  waitingSince?: string;
}

export interface StepContext {
  /** Impersonates the Application's service account. */
  client: KubeClient;
  /** Names this rollout on the hook objects it creates, with the attempt: the Revision's uid or name. */
  rolloutOf: string;
  groups: Group[];
  state: RolloutState;
  conflictPolicy: "fail" | "adopt";
  namespace: string;
  /** Live managed objects (the prune inventory) when the prune group comes. */
  inventory: () => Promise<KubeObject[]>;
  /** false: skip the prune step (Application spec.sync.prune: false). */
  prune?: boolean;
  /** Every desired object of the Revision (for prune). */
  desired: KubeObject[];
  kindsWithoutStatus?: ReadonlySet<string>;
  /** The Application's health timeout (spec.healthTimeout) in milliseconds; default 10 minutes. */
  healthTimeoutMs?: number;
  now?: () => Date;
}

export type StepResult =
  | {
    outcome: "progressing";
    state: RolloutState;
    waitingFor: string;
    /** The wave's live objects that are not Healthy yet (what a diagnosis starts from). */
    unhealthy?: KubeObject[];
  }
  | { outcome: "complete"; state: RolloutState; pruneSkipped?: string }
  | {
    outcome: "failed";
    state: RolloutState;
    failure: RolloutFailure;
    /** For a HealthFailure: the wave's objects that are not Healthy (what a diagnosis starts from). */
    unhealthy?: KubeObject[];
  };

const keyOf = (o: { kind?: string; namespace?: string; name?: string }) =>
  `${o.kind}/${o.namespace ?? ""}/${o.name}`;
const metaKey = (o: KubeObject) =>
  keyOf({ kind: o.kind, namespace: o.metadata?.namespace, name: o.metadata?.name });

function withNamespace(o: KubeObject, ns: string, namespaced: boolean): KubeObject {
  return namespaced && !o.metadata?.namespace ? { ...o, metadata: { ...o.metadata, namespace: ns } } : o;
}

/** Reads the live object (as the service account); undefined when it does not exist. */
async function live(client: KubeClient, o: KubeObject): Promise<KubeObject | undefined> {
  const res = await discoveryFor(client).forKind(o.apiVersion ?? "", o.kind ?? "");
  try {
    return {
      ...(await getObject(client, res, o.metadata!.name!, { namespace: o.metadata?.namespace })),
      kind: o.kind,
      apiVersion: o.apiVersion,
    };
  } catch (err) {
    if (isKubeApiError(err, 404)) return undefined;
    throw err;
  }
}

async function namespaced(client: KubeClient, o: KubeObject): Promise<boolean> {
  return (await discoveryFor(client).forKind(o.apiVersion ?? "", o.kind ?? "")).namespaced;
}

function hookFailure(h: HookStatus, message: string): RolloutFailure {
  return new RolloutFailure(
    "HookFailed",
    `${h.stage} hook ${h.kind}/${h.namespace ? `${h.namespace}/` : ""}${h.name} ${message}`,
    { kind: h.kind, ...(h.namespace ? { namespace: h.namespace } : {}), name: h.name },
    true,
  );
}

/** One step; see the module comment. Never throws for rollout failures: they are `failed` results. */
export async function rolloutStep(ctx: StepContext): Promise<StepResult> {
  const state: RolloutState = { ...ctx.state, hooks: ctx.state.hooks.map((h) => ({ ...h })) };
  try {
    while (state.group < ctx.groups.length) {
      const group = ctx.groups[state.group]!;
      if (group.stage === "prune" && ctx.prune === false) {
        state.group++; // spec.sync.prune: false keeps what a Revision no longer has.
        continue;
      }
      if (group.stage === "prune") {
        // Desired objects without a namespace land in the Application's: compare them as such.
        const desired = await Promise.all(
          ctx.desired.map(async (o) => withNamespace(o, ctx.namespace, await namespaced(ctx.client, o))),
        );
        const plan = planPrune(await ctx.inventory(), desired);
        for (const o of plan.delete) {
          const res = await discoveryFor(ctx.client).forKind(o.apiVersion ?? "", o.kind ?? "");
          await deleteObject(ctx.client, res, o.metadata!.name!, {
            namespace: o.metadata?.namespace,
            propagationPolicy: "Background",
          }).catch((err) => {
            if (!isKubeApiError(err, 404)) throw err;
          });
        }
        state.group++;
        if (plan.skippedMessage && state.group >= ctx.groups.length) {
          return { outcome: "complete", state, pruneSkipped: plan.skippedMessage };
        }
        continue;
      }
      const objects = await Promise.all(
        group.objects.map(async (o) => withNamespace(o, ctx.namespace, await namespaced(ctx.client, o))),
      );
      const attributes = {
        "gitsync.stage": group.stage,
        "gitsync.group": state.group,
        "gitsync.objects": objects.length,
      };
      if (group.stage === "wave") {
        const assessed = await inSpan("apply group", attributes, () => applyWave(ctx, objects));
        const now = ctx.now?.() ?? new Date();
        const wave = judgeWave(assessed, {
          since: state.waitingSince,
          now,
          timeoutMs: ctx.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
        });
        if (wave.outcome === "failed") {
          return { outcome: "failed", state, failure: wave.failure, unhealthy: wave.unhealthy };
        }
        if (wave.outcome === "waiting") {
          state.waitingSince ??= now.toISOString().replace(/\.\d{3}Z$/, "Z");
          return { outcome: "progressing", state, waitingFor: wave.waitingFor, unhealthy: wave.unhealthy };
        }
      } else {
        const waiting = await inSpan(
          "apply group",
          attributes,
          () => runHooks(ctx, state, group.stage, objects),
        );
        if (waiting) return { outcome: "progressing", state, waitingFor: waiting };
      }
      state.group++;
      delete state.waitingSince;
    }
    return { outcome: "complete", state };
  } catch (err) {
    if (err instanceof RolloutFailure) return { outcome: "failed", state, failure: err };
    throw err;
  }
}

/** Applies a wave (idempotent: Server-Side Apply) and assesses the health of each object as applied. */
async function applyWave(ctx: StepContext, objects: KubeObject[]): Promise<AssessedObject[]> {
  const applied = await applyObjects(ctx.client, objects, {
    conflictPolicy: ctx.conflictPolicy,
    defaultNamespace: ctx.namespace,
    dryRun: false,
  });
  return applied.map((a) => {
    const object = { ...a.after, kind: a.desired.kind, apiVersion: a.desired.apiVersion };
    return { object, health: assessHealth(object, ctx.kindsWithoutStatus) };
  });
}

/** Runs the hooks of a stage once per rollout; says which hook is still running, or throws HookFailed. */
async function runHooks(
  ctx: StepContext,
  state: RolloutState,
  stage: "pre-sync" | "post-sync",
  objects: KubeObject[],
): Promise<string | undefined> {
  let waiting: string | undefined;
  for (const o of objects) {
    const key = metaKey(o);
    let hook = state.hooks.find((h) => keyOf(h) === key && h.stage === stage);
    if (!hook) {
      hook = {
        kind: o.kind!,
        ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
        name: o.metadata!.name!,
        stage,
        state: "Pending",
        rollout: state.rollout,
      };
      state.hooks.push(hook);
    }
    if (hook.rollout < state.rollout && hook.state !== "Succeeded") {
      hook.state = "Pending"; // A retry reruns what failed; what succeeded stays done.
      hook.rollout = state.rollout;
      delete hook.message;
    }
    if (hook.state === "Succeeded") continue;
    if (hook.state === "Pending") {
      const mine = `${ctx.rolloutOf}/${state.rollout}`;
      const previous = await live(ctx.client, o);
      if (previous && previous.metadata?.annotations?.[HOOK_ROLLOUT_ANNOTATION] !== mine) {
        // A hook object from an earlier rollout or Revision is replaced, so the hook runs again.
        if (!previous.metadata?.deletionTimestamp) {
          const res = await discoveryFor(ctx.client).forKind(o.apiVersion ?? "", o.kind ?? "");
          await deleteObject(ctx.client, res, o.metadata!.name!, {
            namespace: o.metadata?.namespace,
            propagationPolicy: "Foreground",
          });
        }
        return `${key}: replacing the hook object of an earlier rollout`;
      }
      if (!previous) {
        const stamped = {
          ...o,
          metadata: {
            ...o.metadata,
            annotations: { ...o.metadata?.annotations, [HOOK_ROLLOUT_ANNOTATION]: mine },
          },
        };
        await applyObjects(ctx.client, [stamped], {
          conflictPolicy: ctx.conflictPolicy,
          defaultNamespace: ctx.namespace,
          dryRun: false,
        });
      }
      hook.state = "Running";
    }
    const current = await live(ctx.client, o);
    if (!current) {
      hook.state = "Deleted";
      throw hookFailure(hook, "was deleted while it ran");
    }
    const h = assessHealth(current, ctx.kindsWithoutStatus);
    if (h.status === "Healthy") {
      hook.state = "Succeeded";
      continue;
    }
    if (h.status === "Degraded") {
      hook.state = "Failed";
      hook.message = h.message;
      throw hookFailure(hook, `failed: ${h.message}`);
    }
    waiting ??= `${key}: ${h.status}${h.message ? ` (${h.message})` : ""}`;
  }
  return waiting;
}
