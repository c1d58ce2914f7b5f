/** Waiting in the gitsync black-box tests: for a condition the controller brings about, or its log. */

/**
 * An `until(what, probe, ms)` that polls `probe` every 250 ms until it gives a value (a throw counts as
 * not yet); on timeout the error names what it waited for, the last error, and the last 30 lines of
 * `log()` (the manager's output), which is what tells why.
 */
export function untilWithLog(log: () => string, defaultMs = 60_000) {
  return async function until<T>(
    what: string,
    probe: () => Promise<T | undefined>,
    ms = defaultMs,
  ): Promise<T> {
    const deadline = Date.now() + ms;
    let last: unknown;
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (err) {
        last = err;
      }
      if (Date.now() > deadline) {
        const lines = log().split("\n").slice(-30).join("\n");
        throw new Error(
          `${what}: not within ${ms} ms${last ? ` (${last})` : ""}\n--- gitsync-manager ---\n${lines}`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
}
