/**
 * Decay: entries nobody uses go cold, one bulk statement per run.
 *
 *   lifespanDays(hits) = MEMSVC_DECAY_DAYS × (1 + log2(hits + 1))
 *
 * An entry is demoted when it has been idle (since its last search hit, else its last update) for
 * longer than its lifespan: with the default 7 days, 7 days for an entry never found, 14 after one
 * hit, 21 after three, 28 after seven. Cold entries leave the keyword tier; their vectors stay, and
 * a search hit through the vector tier promotes an entry back when lifespanDays(hits + 1) exceeds
 * its idle time (see search.ts). POST /v1/decay may pass `{effectiveDays}` to use one fixed lifespan
 * for that run only.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { MemsvcDatabase } from "../store/db.ts";

export interface DecayResult {
  demoted: number;
  /** The lifespan rule applied: the formula, or the one-shot override in days. */
  lifespan: string;
}

/** SQL for lifespanDays(hits) of a row, in days. */
export const lifespanDays = (decayDays: number, hitsExpr = sql`hit_count`) =>
  sql<number>`(${decayDays}::float8 * (1 + ln(${hitsExpr} + 1) / ln(2)))`;

export async function runDecay(
  db: Kysely<MemsvcDatabase>,
  decayDays: number,
  effectiveDays?: number,
): Promise<DecayResult> {
  const lifespan = effectiveDays === undefined
    ? lifespanDays(decayDays)
    : sql<number>`${effectiveDays}::float8`;
  const result = await db.updateTable("memory_entries")
    .set({ cold: true })
    .where("cold", "=", false)
    .where(sql<boolean>`coalesce(last_accessed_at, updated_at) < now() - ${lifespan} * interval '1 day'`)
    .executeTakeFirst();
  // The deletion log only has to outlive the in-process indexes' catch-up (seconds); a day is ample,
  // and an index that missed a delete drops the entry when a search finds its row gone.
  await db.deleteFrom("memory_deletions").where("deleted_at", "<", sql<Date>`now() - interval '1 day'`)
    .execute();
  return {
    demoted: Number(result.numUpdatedRows),
    lifespan: effectiveDays === undefined
      ? `${decayDays} × (1 + log2(hits + 1)) days`
      : `${effectiveDays} days`,
  };
}
