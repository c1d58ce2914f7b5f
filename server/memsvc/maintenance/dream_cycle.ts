/**
 * The dream cycle, daily and on demand. Deterministic (entries in id order, fixed thresholds),
 * resumable (a cursor in engine_state) and bounded (at most `batch` entries per run).
 *
 * Phase 1 merges near-duplicates inside one scope (the vector index is partitioned by scope, so a
 * pair never spans two): cosine >= 0.97 AND stop-word-filtered token Jaccard >= 0.5 (cosine alone
 * would merge "Pascal lives in Dubai" with "Pascal lives in Belgium"). The older entry stays, hit
 * counts are summed, the newer one's edges are redirected to it, and the newer one is deleted.
 * Phase 2 links two entries that share at least 3 graph neighbours with a `co_inferred` edge
 * (weight = the number of shared neighbours).
 */
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { tokens } from "../embeddings/mod.ts";
import { partitionKey } from "../memory/scope.ts";
import type { VectorIndex } from "../memory/vector_index.ts";
import type { MemsvcDatabase } from "../store/db.ts";

export const MERGE_COSINE = 0.97;
/** Bound on how far an int8 cached cosine can be from the exact one (about 0.002 in practice). */
const APPROXIMATION = 0.02;
export const MERGE_JACCARD = 0.5;
export const SHARED_NEIGHBOURS = 3;
const CURSOR_KEY = "dream_cycle_cursor";

export interface DreamResult {
  scanned: number;
  merged: number;
  edgesAdded: number;
  durationMs: number;
}

export async function runDreamCycle(
  db: Kysely<MemsvcDatabase>,
  index: VectorIndex,
  batch: number,
): Promise<DreamResult> {
  const started = Date.now();
  const cursor = await readCursor(db);
  await index.sync();
  const rows = await db.selectFrom("memory_entries")
    .select(["id", "user_id", "project_id", "namespace", "content", "created_at"])
    .where("id", ">", cursor)
    .orderBy("id")
    .limit(batch)
    .execute();

  const gone = new Set<string>();
  let merged = 0;
  for (const row of rows) {
    if (gone.has(row.id)) continue;
    const cached = index.vectorOf(row.id);
    if (!cached) continue;
    // The index holds int8 vectors: likely merges are confirmed on the exact stored vectors.
    const likely = index.nearest(cached, [partitionKey(row)], 3, row.id)
      .filter((n) => n.score >= MERGE_COSINE - APPROXIMATION);
    const vector = likely.length ? await index.stored(row.id) : undefined;
    if (!vector) continue;
    for (const near of await index.rescore(vector, likely)) {
      if (near.score < MERGE_COSINE) break;
      if (gone.has(near.id)) continue;
      const other = await db.selectFrom("memory_entries").select(["id", "content", "created_at"])
        .where("id", "=", near.id).executeTakeFirst();
      if (!other || jaccard(tokens(row.content), tokens(other.content)) < MERGE_JACCARD) continue;
      const [keep, dup] = olderFirst(row, other);
      await mergeInto(db, keep.id, dup.id);
      index.evict([dup.id]);
      gone.add(dup.id);
      merged++;
      if (dup.id === row.id) break;
    }
  }
  const edgesAdded = await linkSharedNeighbours(db, rows.map((r) => r.id).filter((id) => !gone.has(id)));
  // A short batch means the end was reached: the next run starts from the beginning again.
  await writeCursor(db, rows.length < batch ? "" : rows.at(-1)!.id);
  return { scanned: rows.length, merged, edgesAdded, durationMs: Date.now() - started };
}

function olderFirst<T extends { id: string; created_at: Date }>(a: T, b: T): [T, T] {
  const aFirst = a.created_at.getTime() < b.created_at.getTime() ||
    (a.created_at.getTime() === b.created_at.getTime() && a.id < b.id);
  return aFirst ? [a, b] : [b, a];
}

/** Keeps `keep`, adds the duplicate's hits, moves its edges over and deletes it, atomically. */
async function mergeInto(db: Kysely<MemsvcDatabase>, keep: string, dup: string) {
  await db.transaction().execute(async (trx) => {
    await sql`update memory_entries set hit_count = hit_count + (select hit_count from memory_entries where id = ${dup})
      where id = ${keep}`.execute(trx);
    await sql`insert into memory_edges (from_id, to_id, relation, weight, created_at)
      select case when from_id = ${dup} then ${keep} else from_id end,
             case when to_id = ${dup} then ${keep} else to_id end,
             relation, weight, created_at
        from memory_edges
       where (from_id = ${dup} or to_id = ${dup})
         and not (from_id in (${dup}, ${keep}) and to_id in (${dup}, ${keep}))
      on conflict do nothing`.execute(trx);
    // The duplicate's own edges and vector go with it (ON DELETE CASCADE).
    await trx.deleteFrom("memory_entries").where("id", "=", dup).execute();
  });
}

/** co_inferred edges from the batch's entries to entries sharing >= 3 neighbours with them. */
async function linkSharedNeighbours(db: Kysely<MemsvcDatabase>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows } = await sql<{ from_id: string }>`
    with e as (
      select from_id as a, to_id as b from memory_edges where relation <> 'co_inferred'
      union
      select to_id, from_id from memory_edges where relation <> 'co_inferred'
    )
    insert into memory_edges (from_id, to_id, relation, weight)
    select least(x.a, y.a), greatest(x.a, y.a), 'co_inferred', count(distinct x.b)::real
      from e x join e y on x.b = y.b and x.a <> y.a
     where x.a in (${sql.join(ids)})
     group by least(x.a, y.a), greatest(x.a, y.a)
    having count(distinct x.b) >= ${SHARED_NEIGHBOURS}
    on conflict do nothing
    returning from_id`.execute(db);
  return rows.length;
}

function jaccard(a: string[], b: string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 1;
  let shared = 0;
  for (const w of sa) if (sb.has(w)) shared++;
  return shared / (sa.size + sb.size - shared);
}

async function readCursor(db: Kysely<MemsvcDatabase>): Promise<string> {
  const row = await db.selectFrom("engine_state").select("value").where("key", "=", CURSOR_KEY)
    .executeTakeFirst();
  return typeof row?.value === "string" ? row.value : "";
}

async function writeCursor(db: Kysely<MemsvcDatabase>, value: string) {
  await db.insertInto("engine_state").values({ key: CURSOR_KEY, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: new Date() }))
    .execute();
}
