/**
 * `edgectl logs controller|agent|access`: the proxy's container logs through the pods/log
 * subresource. The Pods are found by label (internal/edgeproxy/proxy_pods.ts); every container of every matching Pod
 * is read, merged in time order, and prefixed with `[pod/<pod>/<container>]` when there is more
 * than one. `access` prints only the agents' access-log lines (internal/edgeproxy/access_log.ts).
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, untilInterrupted } from "../../internal/cli/mod.ts";
import { parseAccessLine } from "../../internal/edgeproxy/access_log.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/duration/duration.ts";
import { DEFAULT_TAIL, parseTail, proxyNamespaceOption, useKubeOptions, withSession } from "./flags.ts";
import {
  followLogs,
  formatLogLine,
  kubeStreamOpener,
  type LogLine,
  readLogs,
} from "../../internal/edgeproxy/pod_logs.ts";
import {
  findProxyPods,
  type LogSource,
  logSources,
  type ProxyComponent,
} from "../../internal/edgeproxy/proxy_pods.ts";

const TARGETS = ["controller", "agent", "access"] as const;
type Target = typeof TARGETS[number];

export function registerLogs(program: Command, io: Io) {
  const command = program
    .command("logs")
    .summary("Print the logs of the proxy's controller or agents, or the agents' access log")
    .description(
      "Print the logs of the edge proxy's controller, of its agents, or the agents' access-log lines, " +
        "read through the pods/log subresource. Pods are found by the labels app.kubernetes.io/name=edgeproxy " +
        "and app.kubernetes.io/component=controller|agent in --proxy-namespace; every container is read, " +
        "and lines of several containers are merged in time order with a [pod/<pod>/<container>] prefix. " +
        "With -f, edgectl keeps following and reconnects when a stream is lost.",
    )
    .argument("<target>", "controller, agent or access")
    .argument("[node]", "Only the agent on this node (agent and access; same as --node)")
    .option("--node <node>", "Only the agent on this node")
    .option("-f, --follow", "Keep printing new lines as they are written", false)
    .option("--tail <lines>", `Lines per container to show, -1 for all (default ${DEFAULT_TAIL})`)
    .option("--since <duration>", `Only lines newer than this, in ${DURATION_UNITS}`)
    .option("--timestamps", "Print each line's timestamp (RFC 3339) first", false)
    .addOption(proxyNamespaceOption())
    .action(async (target, nodeArg, flags, cmd) => {
      if (!(TARGETS as readonly string[]).includes(target)) {
        cmd.error(`unknown log target "${target}": use controller, agent or access`);
      }
      if (nodeArg !== undefined && flags.node !== undefined && nodeArg !== flags.node) {
        cmd.error(`node given twice: "${nodeArg}" and --node "${flags.node}"`);
      }
      const node = nodeArg ?? flags.node;
      if (node !== undefined && target === "controller") cmd.error("--node applies to agent and access logs");
      const tail = flags.tail === undefined ? DEFAULT_TAIL : parseTail(flags.tail);
      if (tail === undefined) cmd.error(`--tail must be an integer >= -1, not "${flags.tail}"`);
      let since: Date | undefined;
      if (flags.since !== undefined) {
        const ms = parseDuration(flags.since);
        if (ms === undefined) cmd.error(`--since: "${flags.since}" is not a duration; use ${DURATION_UNITS}`);
        since = new Date(Date.now() - ms!);
      }
      const component: ProxyComponent = target === "controller" ? "controller" : "agent";
      await withSession(cmd, async ({ client }) => {
        const pods = await findProxyPods(client, flags.proxyNamespace, component, node);
        const sources = logSources(pods);
        let count = sources.length;
        const print = (line: LogLine) => {
          if ((target as Target) === "access" && !parseAccessLine(line.text)) return;
          io.stdout.write(formatLogLine(line, { prefix: count > 1, timestamps: flags.timestamps }));
        };
        const options = { ...(tail! >= 0 ? { tail: tail! } : {}), ...(since ? { since } : {}) };
        if (!flags.follow) {
          const onSkip = (s: LogSource, message: string) =>
            io.stderr.write(`warning: pod/${s.pod}/${s.container}: ${message}\n`);
          for (const line of await readLogs(client, sources, { ...options, onSkip })) print(line);
          return;
        }
        await untilInterrupted((signal) =>
          followLogs(kubeStreamOpener(client), sources, {
            ...options,
            signal,
            onLine: print,
            onNotice: (m) => io.stderr.write(`${m}\n`),
            discover: async () =>
              logSources(await findProxyPods(client, flags.proxyNamespace, component, node)),
            onNewSource: (s) => {
              count++;
              io.stderr.write(`following new pod/${s.pod}/${s.container}\n`);
            },
          })
        );
      });
    });
  useKubeOptions(command);
  addExamples(command, [
    "# The controller's last 50 lines\nedgectl logs controller",
    "# Follow the agent on node worker-1, with timestamps\nedgectl logs agent worker-1 -f --timestamps",
    "# Every line the agents wrote in the last 2 hours\nedgectl logs agent --since 2h --tail -1",
    "# The access log of one node\nedgectl logs access --node worker-1 --tail 100",
    "# The proxy installed in another namespace\nedgectl logs controller --proxy-namespace proxy",
  ]);
}
