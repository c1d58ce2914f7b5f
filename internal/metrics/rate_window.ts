/**
 * Events per second over a sliding window, in one slot per second: memory stays the same at any
 * traffic, unlike a ring of timestamps.
 */
export class RateWindow {
  readonly #second: number[];
  readonly #count: number[];

  constructor(readonly seconds = 60, private readonly now: () => number = Date.now) {
    this.#second = new Array<number>(seconds).fill(-1);
    this.#count = new Array<number>(seconds).fill(0);
  }

  mark(n = 1): void {
    const second = Math.floor(this.now() / 1000);
    const slot = second % this.seconds;
    // A slot last written a full window ago holds stale counts: start it over.
    if (this.#second[slot] !== second) {
      this.#second[slot] = second;
      this.#count[slot] = 0;
    }
    this.#count[slot]! += n;
  }

  /** The average rate over the last `seconds` seconds, the current (partial) second included. */
  perSecond(): number {
    const oldest = Math.floor(this.now() / 1000) - this.seconds;
    let total = 0;
    for (let i = 0; i < this.seconds; i++) if (this.#second[i]! > oldest) total += this.#count[i]!;
    return total / this.seconds;
  }
}
