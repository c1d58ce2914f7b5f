import type { Logger } from "../log/mod.ts";

/** Wrappers (npm, deno task, a terminal's process group) often deliver one stop request twice. */
const DUPLICATE_SIGNAL_MS = 1000;

/**
 * Stops a long-running command on SIGTERM or SIGINT: `stop()` runs once, then the process exits 0
 * (1 if stopping failed). A second signal sent later than a duplicate would be means "stop now".
 */
export function exitOnStopSignals(log: Logger, stop: () => Promise<void>): void {
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt) {
      if (Date.now() - firstSignalAt < DUPLICATE_SIGNAL_MS) return;
      log.warn("second signal: exiting now", { signal });
      process.exit(1);
    }
    firstSignalAt = Date.now();
    log.info("signal received", { signal });
    stop().then(() => process.exit(0), (err) => {
      log.error("shutdown failed", { err });
      process.exit(1);
    });
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
