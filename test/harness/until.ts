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
