import type { Io } from "./io.ts";

/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines (every tenth) when stderr
 * is a file or a pipe, so logs stay readable.
 *
 * @example
 * const bar = progressBar(io, "importing", "files");
 * bar.update(500, 10_000);
 * bar.done();
 */
export function progressBar(io: Io, label: string, unit: string) {
  const tty = Boolean((io.stderr as { isTTY?: boolean }).isTTY);
  let lastDraw = 0;
  let lastTenth = -1;
  let shown = false;
  const text = (done: number, total: number) => {
    if (total <= 0) return { pct: -1, amount: unit === "bytes" ? `${mib(done)} MiB` : `${done} ${unit}` };
    const amount = unit === "bytes" ? `${mib(done)}/${mib(total)} MiB` : `${done}/${total} ${unit}`;
    return { pct: Math.floor((done / total) * 100), amount };
  };
  return {
    /** `total` 0: not known (a download): the amount alone. */
    update(done: number, total: number): void {
      const { pct, amount } = text(done, total);
      if (pct < 0) {
        if (tty) {
          io.stderr.write(`\r${label} ${amount}`);
          shown = true;
        }
        return;
      }
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        const width = 30;
        const full = Math.round((pct / 100) * width);
        io.stderr.write(`\r${label} [${"#".repeat(full)}${"-".repeat(width - full)}] ${pct}% ${amount}`);
        shown = true;
        return;
      }
      const tenth = Math.floor(pct / 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      io.stderr.write(`${label}: ${pct}% (${amount})\n`);
    },
    /** Ends the bar's line (on a terminal). */
    done(): void {
      if (tty && shown) io.stderr.write("\n");
      shown = false;
    },
  };
}

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
