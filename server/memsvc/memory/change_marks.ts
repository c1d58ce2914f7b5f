/**
 * How far the two sequences the in-process indexes catch up from have moved: `memory_change_seq`
 * (entries inserted, changed or deleted: the keyword index) and `memory_vectors_seq` (vectors stored:
 * the vector index). A sequence's last value moves as soon as a write takes a number, before it
 * commits, so when neither moved past what an index has read there is nothing for it to read: a
 * search pays this one small query instead of the three catch-up reads (entries, deletions, vectors).
 * On the embedded database `ChangeMarksWatch` skips even that query while no statement that may write
 * has run since the last read (internal/db/write_count.ts): the sequences cannot have moved.
 *
 * @example
 * const marks = await readChangeMarks(db);
 * await Promise.all([keywordIndex.sync(marks.entries), vectorIndex.sync(marks.vectors)]);
 */
import { type Kysely, sql } from "kysely";
import { writeCount } from "../../../internal/db/mod.ts";
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

/** The change marks, read again only when a write may have moved them (see the module doc). */
export class ChangeMarksWatch {
  #marks: ChangeMarks | undefined;
  /** The write count before `#marks` was read. */
  #at = -1;

  constructor(private readonly db: Kysely<MemsvcDatabase>) {}

  async read(): Promise<ChangeMarks> {
    const count = writeCount(this.db);
    if (count !== undefined && count === this.#at && this.#marks) return this.#marks;
    const marks = await readChangeMarks(this.db);
    // Taken before the read: a write that ran during it makes the next call read again.
    if (count !== undefined) [this.#marks, this.#at] = [marks, count];
    return marks;
  }
}
