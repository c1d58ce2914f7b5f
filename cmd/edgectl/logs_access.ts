/**
 * `edgectl logs-access`: the agents' access-log records (internal/edgeproxy/access_log.ts), parsed and filtered by
 * gateway, route and status, as a table, JSON or YAML; with --follow, new records as they arrive.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, untilInterrupted } from "../../internal/cli/mod.ts";
import {
  type AccessFilter,
  followPrinter,
  matchesFilter,
  parseAccessLine,
  printRecords,
} from "../../internal/edgeproxy/access_log.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/duration/duration.ts";
import { OUTPUT_ENV, parseTail, proxyNamespaceOption, useKubeOptions, withSession } from "./flags.ts";
import {
  followLogs,
  kubeStreamOpener,
  type LogLine,
  readLogs,
  resumePoints,
} from "../../internal/edgeproxy/pod_logs.ts";
import { findProxyPods, logSources } from "../../internal/edgeproxy/proxy_pods.ts";

export function registerLogsAccess(program: Command, io: Io) {
  const command = program
    .command("logs-access")
    .summary("Query the agents' access logs: filter by gateway, route and status")
    .description(
      'Read the access-log records the agents write (one JSON object per line with "msg":"access"; ' +
        "see docs/edgectl.md), keep those that match every filter given, and print them in time order " +
        "as a table, JSON or YAML. --gateway and --route take a name (any namespace) or namespace/name. " +
        "With --follow, records are printed as they arrive: table rows, one JSON object per line " +
        "(-o json) or YAML documents separated by --- (-o yaml).",
    )
    .option("--since <duration>", `Only records newer than this, in ${DURATION_UNITS}`)
    .option("--gateway <name>", "Only requests through this ProxyGateway (name or namespace/name)")
    .option("--route <name>", "Only requests matched by this ProxyRoute (name or namespace/name)")
    .option("--status <code>", "Only responses with this HTTP status code, e.g. 503")
    .option("--node <node>", "Only the agent on this node")
    .option("--tail <records>", "Only the last n matching records (before --follow continues)")
    .option("-f, --follow", "Keep printing new records as they arrive", false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .addOption(proxyNamespaceOption())
    .action(async (flags, cmd) => {
      const filter: AccessFilter = {};
      if (flags.gateway !== undefined) filter.gateway = flags.gateway;
      if (flags.route !== undefined) filter.route = flags.route;
      if (flags.status !== undefined) {
        const status = /^\d{3}$/.test(flags.status) ? Number(flags.status) : NaN;
        if (!(status >= 100 && status <= 599)) {
          cmd.error(`--status must be an HTTP status code (100-599), not "${flags.status}"`);
        }
        filter.status = status;
      }
      if (flags.since !== undefined) {
        const ms = parseDuration(flags.since);
        if (ms === undefined) cmd.error(`--since: "${flags.since}" is not a duration; use ${DURATION_UNITS}`);
        filter.since = new Date(Date.now() - ms!);
      }
      let tail: number | undefined;
      if (flags.tail !== undefined) {
        tail = parseTail(flags.tail);
        if (tail === undefined || tail < 0) cmd.error(`--tail must be an integer >= 0, not "${flags.tail}"`);
      }
      const format = flags.output;
      await withSession(cmd, async ({ client }) => {
        const sources = logSources(await findProxyPods(client, flags.proxyNamespace, "agent", flags.node));
        const toRecord = (line: LogLine) => {
          const r = parseAccessLine(line.text, line.time, line.source.node);
          return r && matchesFilter(r, filter) ? r : undefined;
        };
        const lines = await readLogs(client, sources, {
          ...(filter.since ? { since: filter.since } : {}),
          onSkip: (s, message) => io.stderr.write(`warning: pod/${s.pod}/${s.container}: ${message}\n`),
        });
        let records = lines.map(toRecord).filter((r) => r !== undefined);
        if (tail !== undefined) records = tail === 0 ? [] : records.slice(-tail);
        if (!flags.follow) {
          printRecords(io, records, format);
          return;
        }
        const printer = followPrinter(io, format, records);
        // Sources with lines continue after their last line; the others start now.
        const from = resumePoints(lines);
        const now = new Date();
        await untilInterrupted((signal) =>
          followLogs(kubeStreamOpener(client), sources, {
            since: filter.since ?? now,
            from,
            signal,
            onLine: (line) => {
              const r = toRecord(line);
              if (r) printer(r);
            },
            onNotice: (m) => io.stderr.write(`${m}\n`),
            discover: async () =>
              logSources(await findProxyPods(client, flags.proxyNamespace, "agent", flags.node)),
          })
        );
      });
    });
  useKubeOptions(command);
  addExamples(command, [
    "# Server errors of the last hour\nedgectl logs-access --since 1h --status 503",
    "# Requests of one route, as JSON\nedgectl logs-access --route shop/web -o json",
    "# Follow one gateway's traffic\nedgectl logs-access --gateway main --follow",
  ]);
}
