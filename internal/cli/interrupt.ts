/**
 * Runs `fn` (a follow, a watch) until Ctrl-C or SIGTERM aborts its signal, then returns normally so
 * the command exits 0 with its output flushed (kubectl's logs -f ends the same way from the user's
 * point of view).
 */
export async function untilInterrupted(fn: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  // A second Ctrl-C while the streams close must not kill the process either.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    await fn(controller.signal);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
