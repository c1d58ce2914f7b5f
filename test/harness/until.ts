/**
 * Polls `probe` until it returns something other than undefined (a throw counts as "not yet"); after `ms`
 * (default 40 s) throws naming what was awaited, the probe's last error and `context()`, e.g. the last log
 * lines of the server under test.
 *
 *   const app = await until("web deployed", async () => (await getApp()).status?.deployedRevision, {
 *     context: () => manager.output().split("\n").slice(-20).join("\n"),
 *   });
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  o: { ms?: number; intervalMs?: number; context?: () => string } = {},
): Promise<T> {
  const ms = o.ms ?? 40_000;
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
      const context = o.context?.();
      throw new Error(
        `${what}: not within ${ms} ms${last ? ` (${last})` : ""}${context ? `\n${context}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 200));
  }
}

/**
 * An `until(what, probe, ms?)` bound to a server's log: on timeout the error ends with the last 30 lines of
 * `log()` under `--- <label> ---`, which is what tells why. For a black-box test file that waits on one
 * server (the gitsync tests wait on gitsync-manager).
 */
export function untilWithLog(
  log: () => string,
  o: { ms?: number; intervalMs?: number; label?: string } = {},
) {
  const label = o.label ?? "gitsync-manager";
  return <T>(what: string, probe: () => Promise<T | undefined>, ms = o.ms ?? 60_000): Promise<T> =>
    until(what, probe, {
      ms,
      intervalMs: o.intervalMs ?? 250,
      context: () => `--- ${label} ---\n${log().split("\n").slice(-30).join("\n")}`,
    });
}
