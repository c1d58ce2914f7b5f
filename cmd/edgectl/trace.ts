/**
 * `edgectl trace list|get|search|services`: traces from Jaeger's query API (internal/edgeproxy/jaeger_client.ts).
 * Jaeger's search needs a service; without --service, edgectl searches every service and merges
 * the results (newest first, each trace once).
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/duration/duration.ts";
import { jaegerFor, OUTPUT_ENV, withServerOptions } from "./flags.ts";
import { parseTime } from "../../internal/edgeproxy/prometheus_client.ts";
import {
  searchTraces,
  spanTree,
  SUMMARY_HEADERS,
  summaryRow,
  type TraceSummary,
} from "../../internal/edgeproxy/trace_view.ts";

type UsageError = { error(message: string): never };

function limitOf(cmd: UsageError, text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : 0;
  if (n < 1) cmd.error(`--limit must be a positive integer, not "${text}"`);
  return n;
}

function lookbackOf(cmd: UsageError, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    cmd.error(`--lookback: "${text}" is not a duration; use ${DURATION_UNITS}`);
  }
  return ms!;
}

/** Tag filters from repeated `--tag key=value`. */
export function parseTags(cmd: UsageError, tags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags) {
    const eq = t.indexOf("=");
    if (eq < 1) cmd.error(`--tag must be key=value, not "${t}"`);
    out[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return out;
}

function printSummaries(io: Io, items: TraceSummary[], format: "table" | "json" | "yaml" | "wide") {
  printResult(io, { items }, format, {
    headers: SUMMARY_HEADERS,
    rows: () => items.map(summaryRow),
    empty: "No traces found",
  });
}

const repeat = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerTrace(program: Command, io: Io) {
  const trace = withServerOptions(
    program
      .command("trace")
      .summary("List, search and show traces from Jaeger")
      .description(
        "Read traces from the Jaeger query service: the traces of the last --lookback, searches by service, " +
          "operation, time, duration and tags, one trace as a span tree, and the services that sent traces.",
      ),
    "jaeger",
  );

  trace
    .command("list")
    .description("The newest traces of the last --lookback, of one service or of all")
    .option("--service <name>", "Only traces of this service (default: every service)")
    .option("--limit <n>", "How many traces", "20")
    .option("--lookback <duration>", `How far back, in ${DURATION_UNITS}`, "1h")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const limit = limitOf(cmd, flags.limit);
      const end = new Date();
      const start = new Date(end.getTime() - lookbackOf(cmd, flags.lookback));
      const items = await searchTraces(jaegerFor(cmd), {
        ...(flags.service ? { service: flags.service } : {}),
        start,
        end,
        limit,
      });
      printSummaries(io, items, flags.output);
    });

  const searchCmd = trace
    .command("search")
    .description(
      "Search traces. Times are RFC 3339 (--start defaults to --lookback before --end, --end to now); " +
        "durations are like 500us, 100ms, 1.5s or 2m; --tag may be repeated and every tag must match.",
    )
    .option("--service <name>", "Service (default: every service)")
    .option("--operation <name>", "Operation name")
    .option("--start <time>", "Earliest start (RFC 3339)")
    .option("--end <time>", "Latest start (RFC 3339)")
    .option("--lookback <duration>", "Window before --end when --start is not given", "1h")
    .option("--min-duration <duration>", "Only traces at least this long, e.g. 100ms")
    .option("--max-duration <duration>", "Only traces at most this long")
    .option("--tag <key=value>", "Span tag that must match (repeatable)", repeat)
    .option("--limit <n>", "How many traces", "20")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const time = (flag: string, text: string | undefined) => {
        if (text === undefined) return undefined;
        const d = /^\d+(\.\d+)?$/.test(text) ? undefined : parseTime(text);
        if (!d) cmd.error(`${flag}: "${text}" is not an RFC 3339 time (e.g. 2026-11-25T10:00:00Z)`);
        return d;
      };
      const duration = (flag: string, text: string | undefined) => {
        if (text === undefined) return undefined;
        const ms = parseDuration(text);
        if (ms === undefined) cmd.error(`${flag}: "${text}" is not a duration; use ${DURATION_UNITS}`);
        return ms! * 1000;
      };
      const end = time("--end", flags.end) ?? new Date();
      const start = time("--start", flags.start) ?? new Date(end.getTime() - lookbackOf(cmd, flags.lookback));
      if (start.getTime() > end.getTime()) cmd.error("--start must not be after --end");
      const minDurationUs = duration("--min-duration", flags.minDuration);
      const maxDurationUs = duration("--max-duration", flags.maxDuration);
      if (minDurationUs !== undefined && maxDurationUs !== undefined && minDurationUs > maxDurationUs) {
        cmd.error("--min-duration must not be longer than --max-duration");
      }
      const tags = parseTags(cmd, flags.tag ?? []);
      const items = await searchTraces(jaegerFor(cmd), {
        ...(flags.service ? { service: flags.service } : {}),
        ...(flags.operation ? { operation: flags.operation } : {}),
        ...(Object.keys(tags).length ? { tags } : {}),
        ...(minDurationUs !== undefined ? { minDurationUs } : {}),
        ...(maxDurationUs !== undefined ? { maxDurationUs } : {}),
        start,
        end,
        limit: limitOf(cmd, flags.limit),
      });
      printSummaries(io, items, flags.output);
    });
  addExamples(searchCmd, [
    "edgectl trace search --service edge-agent --operation 'GET /cart' --min-duration 100ms",
    "edgectl trace search --service edge-agent --tag http.status_code=503 --tag route=shop/web",
    "edgectl trace search --service edge-agent --start 2026-11-25T09:00:00Z --end 2026-11-25T10:00:00Z",
  ]);

  trace
    .command("get")
    .description(
      "One trace as a span tree: operation, service, duration, offset from the trace start and tags",
    )
    .argument("<trace-id>", "Trace id (hex)")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (id, flags, cmd) => {
      if (!/^[0-9a-fA-F]{1,32}$/.test(id)) cmd.error(`"${id}" is not a trace id (1-32 hex digits)`);
      const t = await jaegerFor(cmd).trace(id);
      if (!t) throw new Error(`trace ${id} not found`);
      printResult(io, t, flags.output, spanTree);
    });

  trace
    .command("services")
    .description("The services that sent traces")
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const services = await jaegerFor(cmd).services();
      printResult(
        io,
        { services },
        flags.output,
        (v) => [`Services (${v.services.length}):`, ...v.services.map((s) => `  ${s}`)].join("\n"),
      );
    });

  addExamples(trace, [
    "# The 20 newest traces of the last hour\nedgectl trace list",
    "# A week back (d and w units work)\nedgectl trace list --lookback 7d --limit 50",
    "# One trace as a tree\nedgectl trace get 4bf92f3577b34da6a3ce929d0e0e4736",
    "# Another Jaeger\nedgectl trace services --trace-endpoint http://jaeger.monitoring:16686",
  ]);
}
