/**
 * `edgectl metrics dashboard`: a live terminal view of the proxy's traffic that redraws every
 * --interval: totals with sparklines of the last --range, the busiest routes (each with its own
 * sparkline) and backends, and the agents. It uses the terminal's alternate screen and restores
 * the terminal on q, Ctrl-C or SIGTERM. `--once` prints one plain frame (scripts, no terminal).
 */
import type { Command } from "@commander-js/extra-typings";
import { CliError, type Io } from "../../internal/cli/mod.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/duration/duration.ts";
import { promDuration, prometheusFor } from "./flags.ts";
import { renderFrame, runLive, takeSnapshot } from "../../internal/edgeproxy/metrics_dashboard.ts";

export function registerDashboard(metrics: Command, io: Io) {
  metrics
    .command("dashboard")
    .summary("A live terminal view of traffic with sparklines; q or Ctrl-C quits")
    .description(
      "A live view that redraws every --interval: requests/s, 5xx ratio and p99 latency with sparklines of " +
        "the last --range, the busiest routes and backends, and the agents. q or Ctrl-C quits and restores the " +
        "terminal. Needs a terminal; --once prints a single frame instead.",
    )
    .option("--interval <duration>", "Time between refreshes", "2s")
    .option("--range <duration>", "History the sparklines show", "5m")
    .option("--window <duration>", "Rate window of the queries", "1m")
    .option("--limit <n>", "Routes and backends shown", "5")
    .option("--once", "Print one frame and exit (no terminal needed)", false)
    .action(async (flags, cmd) => {
      const intervalMs = parseDuration(flags.interval);
      if (intervalMs === undefined || intervalMs < 100) {
        cmd.error(
          `--interval: "${flags.interval}" is not a duration of at least 100ms; use ${DURATION_UNITS}`,
        );
      }
      const rangeMs = parseDuration(flags.range);
      if (rangeMs === undefined || rangeMs < 1000) {
        cmd.error(`--range: "${flags.range}" is not a duration >= 1s`);
      }
      const limit = /^\d+$/.test(flags.limit) ? Number(flags.limit) : 0;
      if (limit < 1) cmd.error(`--limit must be a positive integer, not "${flags.limit}"`);
      const window = promDuration(cmd, "--window", flags.window);
      const client = prometheusFor(cmd);
      const options = {
        window,
        windowText: flags.window,
        rangeMs: rangeMs!,
        range: flags.range,
        limit,
        interval: flags.interval,
      };
      const frame = async () => {
        try {
          return renderFrame(await takeSnapshot(client, options), process.stdout.columns || 120);
        } catch (err) {
          if (flags.once) throw err;
          return renderFrame({ error: (err as Error).message, at: new Date(), url: client.baseUrl });
        }
      };
      if (flags.once) {
        io.stdout.write(await frame());
        return;
      }
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new CliError("metrics dashboard needs a terminal; use --once to print a single frame");
      }
      await runLive(io, frame, intervalMs!);
    });
}
