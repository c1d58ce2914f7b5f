/**
 * A background loop: runs a job every interval and on demand, never two runs at once. The in-flight
 * guard covers this process; an advisory lock per loop covers every process sharing one PostgreSQL.
 * A run that finds the loop busy is skipped and counted, and the last run is kept for deep health.
 */
import { type Database, tryAdvisoryLock } from "../../../internal/db/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export interface LoopRun<R> {
  startedAt: string;
  durationMs: number;
  ok: boolean;
  result?: R;
  error?: string;
}

export type RunOutcome<R> = { skipped: false; run: LoopRun<R> } | { skipped: true; reason: string };

export class Loop<R extends object> {
  #running = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #current: Promise<unknown> | undefined;
  lastRun: LoopRun<R> | undefined;
  skipped = 0;

  constructor(
    readonly name: string,
    private readonly database: Database<MemsvcDatabase>,
    private readonly job: () => Promise<R>,
    private readonly log: Logger,
    private readonly onRun?: (name: string, outcome: RunOutcome<R>) => void,
  ) {}

  /** Runs now unless a run is already under way here or in another process. */
  async runNow(job: () => Promise<R> = this.job): Promise<RunOutcome<R>> {
    if (this.#running) return this.#skip("already running in this process");
    this.#running = true;
    const started = Date.now();
    const work = tryAdvisoryLock(this.database, `memsvc:loop:${this.name}`, job);
    this.#current = work.catch(() => {});
    try {
      const locked = await work;
      if (!locked.ran) return this.#skip("running in another process");
      return this.#record({
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        ok: true,
        result: locked.value,
      });
    } catch (err) {
      this.log.error(`${this.name} failed`, { err });
      return this.#record({
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        ok: false,
        error: (err as Error).message,
      });
    } finally {
      this.#running = false;
    }
  }

  #skip(reason: string): RunOutcome<R> {
    this.skipped++;
    this.log.info(`${this.name} skipped`, { reason, skipped: this.skipped });
    const outcome = { skipped: true as const, reason };
    this.onRun?.(this.name, outcome);
    return outcome;
  }

  #record(run: LoopRun<R>): RunOutcome<R> {
    this.lastRun = run;
    if (run.ok) this.log.info(`${this.name} done`, { durationMs: run.durationMs, result: run.result });
    const outcome = { skipped: false as const, run };
    this.onRun?.(this.name, outcome);
    return outcome;
  }

  start(intervalMs: number) {
    this.#timer ??= setInterval(() => void this.runNow(), intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Stops the timer and waits for a run in progress to finish. */
  async stop() {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#current;
  }

  status() {
    return { running: this.#running, skipped: this.skipped, lastRun: this.lastRun ?? null };
  }
}
