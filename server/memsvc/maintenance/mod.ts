/**
 * memsvc's background loops: decay every MEMSVC_DECAY_INTERVAL_MS, the dream cycle every 24 hours
 * (deliberately fixed), and orphan reaping on demand. Each is a Loop: never two runs at once, here
 * or in another process on the same PostgreSQL.
 */
import type { Database } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { MemsvcMetrics } from "../metrics/registry.ts";
import type { VectorIndex } from "../memory/vector_index.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import { type DecayResult, runDecay } from "./decay.ts";
import { type DreamResult, runDreamCycle } from "./dream_cycle.ts";
import { Loop, type RunOutcome } from "./loop.ts";
import { reapOrphans, type ReapResult } from "./reap_orphans.ts";

export const DREAM_INTERVAL_MS = 24 * 60 * 60_000;

export interface MaintenanceSettings {
  decayDays: number;
  decayIntervalMs: number;
  dreamBatch: number;
}

export interface Maintenance {
  decay: Loop<DecayResult>;
  dream: Loop<DreamResult>;
  reap: Loop<ReapResult>;
  runDecay(effectiveDays?: number): Promise<DecayResult>;
  start(): void;
  stop(): Promise<void>;
  status(): Record<string, ReturnType<Loop<object>["status"]>>;
}

/** Reports each run to the metrics: the run itself, and what it changed as counters. */
export function reportTo(metrics: MemsvcMetrics) {
  return (name: string, outcome: RunOutcome<object>) => {
    if (outcome.skipped) return metrics.recordLoopRun(name, { durationMs: 0, ok: true, skipped: true });
    metrics.recordLoopRun(name, outcome.run);
    const result = (outcome.run.result ?? {}) as Partial<DecayResult & DreamResult & ReapResult>;
    if (result.demoted) metrics.count("demotions", result.demoted);
    if (result.merged) metrics.count("dreamMerges", result.merged);
    const reaped = (result.staleVectors ?? 0) + (result.expiredSessions ?? 0) +
      (result.expiredVerifications ?? 0) +
      (result.oldActivitySamples ?? 0) + (result.cachedVectors ?? 0);
    if (reaped) metrics.count("orphansReaped", reaped);
  };
}

export function createMaintenance(
  database: Database<MemsvcDatabase>,
  index: VectorIndex,
  embedderId: () => string,
  settings: MaintenanceSettings,
  log: Logger,
  onRun?: (name: string, outcome: RunOutcome<object>) => void,
  /** Resolves once the vectors of writes answered so far are stored (VectorBacklog.settled). */
  vectorsSettled: () => Promise<void> = () => Promise.resolve(),
): Maintenance {
  const { db } = database;
  const runDecayNow = (effectiveDays?: number) => runDecay(db, settings.decayDays, effectiveDays);
  const decay = new Loop("decay", database, () => runDecayNow(), log, onRun);
  const dream = new Loop(
    "dream cycle",
    database,
    // Near-duplicates are found by their vectors: wait for those of earlier writes (built after commit).
    async () => {
      await vectorsSettled();
      return await runDreamCycle(db, index, settings.dreamBatch);
    },
    log,
    onRun,
  );
  const reap = new Loop("orphan reaping", database, () => reapOrphans(db, index, embedderId()), log, onRun);
  return {
    decay,
    dream,
    reap,
    runDecay: runDecayNow,
    start() {
      decay.start(settings.decayIntervalMs);
      dream.start(DREAM_INTERVAL_MS);
    },
    async stop() {
      await Promise.all([decay.stop(), dream.stop(), reap.stop()]);
    },
    status: () => ({ decay: decay.status(), dreamCycle: dream.status(), reapOrphans: reap.status() }),
  };
}
