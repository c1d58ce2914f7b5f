/**
 * How far a reader of a change sequence has got: a column every write sets from a sequence
 * (memsvc's `memory_entries.change_seq`, the vault's `note_index.change_seq`), read past the
 * highest value seen to catch an in-process index up with every process's writes.
 *
 * Sequence values are handed out at write time but become visible at commit, so a transaction can
 * commit a lower value after a higher one was read. The values skipped below the mark (gaps) are
 * read again for `gapMs`; gaps that never fill are values of rows written again, deleted, or of
 * rolled-back writes. Gaps further than `gapWindow` below the mark are not waited for.
 *
 * @example
 * const cursor = new ChangeCursor();
 * const gaps = cursor.pending(Date.now()); // read `seq > cursor.seen or seq = any(gaps)`
 * cursor.advance(rows.map((r) => Number(r.change_seq)), Date.now());
 */
export class ChangeCursor {
  /** The highest value read (0 before the first read). */
  seen = 0;
  readonly #gaps = new Map<number, number>();

  constructor(readonly gapMs = 3_000, readonly gapWindow = 1_000) {}

  /** The gaps still worth reading again, after dropping those that waited long enough. */
  pending(now: number): number[] {
    for (const [seq, at] of this.#gaps) {
      if (now - at > this.gapMs || seq < this.seen - this.gapWindow) this.#gaps.delete(seq);
    }
    return [...this.#gaps.keys()];
  }

  get hasGaps(): boolean {
    return this.#gaps.size > 0;
  }

  /** Moves the mark over the values read; values skipped below it become gaps. */
  advance(seqs: number[], now: number) {
    seqs.sort((a, b) => a - b);
    for (const s of seqs) {
      this.#gaps.delete(s);
      if (s <= this.seen) continue;
      // The first read has nothing to wait for: any gap before it is history.
      if (this.seen > 0) {
        for (let g = Math.max(this.seen + 1, s - this.gapWindow); g < s; g++) this.#gaps.set(g, now);
      }
      this.seen = s;
    }
  }

  /**
   * Moves the mark up to a value the sequence has handed out (read from the sequence itself) when no
   * row past the mark was found: the values passed over, that one included, become gaps, so a write
   * that took one of them and commits late is still read. Lets a reader compare the sequence with
   * `seen` to know there is nothing new, even after numbers taken by writes that left no row.
   */
  reach(value: number, now: number) {
    if (value <= this.seen) return;
    for (let g = Math.max(this.seen + 1, value - this.gapWindow); g <= value; g++) this.#gaps.set(g, now);
    this.seen = value;
  }

  /** Takes up where a saved cursor (`seen`, and the gaps it was waiting for) left off. */
  restore(seen: number, gaps: Iterable<number>, now: number) {
    this.seen = seen;
    this.#gaps.clear();
    for (const g of gaps) this.#gaps.set(g, now);
  }
}
