/**
 * Orphan reaping, on demand: rows that no longer serve anything. Foreign keys already delete an
 * entry's edges and vector with it, so what remains to reap is what outlives its purpose: vectors
 * made by an embedder no longer in use, expired sessions and verification tokens, activity samples
 * past the history window, and cached vectors of entries another process deleted.
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import type { VectorIndex } from "../memory/vector_index.ts";
import type { MemsvcDatabase } from "../store/db.ts";

/** Activity samples are kept for two days: the history shows 24 hours. */
const SAMPLE_RETENTION = "48 hours";
const CHECK_BATCH = 1_000;

export interface ReapResult {
  staleVectors: number;
  expiredSessions: number;
  expiredVerifications: number;
  oldActivitySamples: number;
  cachedVectors: number;
}

export async function reapOrphans(
  db: Kysely<MemsvcDatabase>,
  index: VectorIndex,
  embedderId: string,
): Promise<ReapResult> {
  const count = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);
  const staleVectors = count(
    await db.deleteFrom("memory_vectors").where("model", "<>", embedderId).executeTakeFirst(),
  );
  const expiredSessions = Number(
    (await sql`delete from "session" where "expiresAt" < now()`.execute(db)).numAffectedRows ?? 0,
  );
  const expiredVerifications = Number(
    (await sql`delete from "verification" where "expiresAt" < now()`.execute(db)).numAffectedRows ?? 0,
  );
  const oldActivitySamples = count(
    await db.deleteFrom("metrics_samples").where(sql<boolean>`minute < now() - ${SAMPLE_RETENTION}::interval`)
      .executeTakeFirst(),
  );
  let cachedVectors = 0;
  const ids = index.ids();
  for (let i = 0; i < ids.length; i += CHECK_BATCH) {
    const slice = ids.slice(i, i + CHECK_BATCH);
    const live = new Set(
      (await db.selectFrom("memory_entries").select("id").where("id", "in", slice).execute()).map((r) =>
        r.id
      ),
    );
    const dead = slice.filter((id) => !live.has(id));
    index.evict(dead);
    cachedVectors += dead.length;
  }
  return { staleVectors, expiredSessions, expiredVerifications, oldActivitySamples, cachedVectors };
}
