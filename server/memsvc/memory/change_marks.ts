/**
 * How far the two sequences the in-process indexes catch up from have moved: `memory_change_seq`
 * (entries inserted, changed or deleted: the keyword index) and `memory_vectors_seq` (vectors stored:
 * the vector index). A sequence's last value moves as soon as a write takes a number, before it
 * commits, so when neither moved past what an index has read there is nothing for it to read: a
 * search pays this one small query instead of the three catch-up reads (entries, deletions, vectors).
 *
 * @example
 * const marks = await readChangeMarks(db);
 * await Promise.all([keywordIndex.sync(marks.entries), vectorIndex.sync(marks.vectors)]);
 */
import { type Kysely, sql } from "kysely";
import type { MemsvcDatabase } from "../store/db.ts";

export interface ChangeMarks {
  /** The last value memory_change_seq handed out (0 before the first). */
  entries: number;
  /** The last value memory_vectors_seq handed out (0 before the first). */
  vectors: bigint;
}

export async function readChangeMarks(db: Kysely<MemsvcDatabase>): Promise<ChangeMarks> {
  // A sequence not yet used reports last_value 1 with is_called false.
  const { rows } = await sql<{ entries: string; vectors: string }>`
    select (select case when is_called then last_value else 0 end from memory_change_seq)::text as entries,
           (select case when is_called then last_value else 0 end from memory_vectors_seq)::text as vectors`
    .execute(db);
  return { entries: Number(rows[0]!.entries), vectors: BigInt(rows[0]!.vectors) };
}
