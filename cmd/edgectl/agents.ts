/**
 * `edgectl agents list|describe|config`: every agent of the proxy. `list` reads only the agent Pods;
 * `describe` adds what each agent reports over gRPC; `config` compares the config version every agent
 * has applied (an agent behind the others shows an older version).
 */
import type { Command } from "@commander-js/extra-typings";
import {
  addExamples,
  CliError,
  type Io,
  outputOption,
  printResult,
  wideOutputOption,
} from "../../internal/cli/mod.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import {
  agentAddress,
  allAgentTargets,
  callAgents,
  findAgentPod,
  listAgentPods,
} from "../../internal/edgeproxy/agent_client.ts";
import {
  agentNamespaceAlias,
  OUTPUT_ENV,
  parseTimeout,
  proxyNamespaceOption,
  useKubeOptions,
  withAgentOptions,
  withSession,
} from "./flags.ts";
import { labelSelector } from "../../internal/edgeproxy/proxy_pods.ts";
import {
  agentRows,
  agentWideRows,
  CONFIG_HEADERS,
  configRows,
  describeAgents,
  LIST_HEADERS,
  LIST_WIDE_HEADERS,
  printAgentAnswers,
} from "../../internal/edgeproxy/agent_views.ts";

export function registerAgents(program: Command, io: Io) {
  const agents = program
    .command("agents")
    .summary("List and describe the proxy's agents, and compare their applied config")
    .description(
      "The edge proxy's agents: Pods labelled app.kubernetes.io/name=edgeproxy, " +
        "app.kubernetes.io/component=agent in --proxy-namespace (default edge-system). describe and config " +
        "also ask each agent over gRPC (see `edgectl agent --help` for how it is dialled).",
    );
  useKubeOptions(agents);

  const list = agents
    .command("list")
    .summary("List the agents with their node, status, readiness, restarts and age")
    .addOption(proxyNamespaceOption())
    .addOption(agentNamespaceAlias())
    .addOption(wideOutputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const namespace = flags.agentNamespace ?? flags.proxyNamespace;
      await withSession(cmd, async ({ client }) => {
        const pods = await listAgentPods(client, namespace);
        const now = new Date();
        printResult(io, listDocument(pods.map((p) => withoutManagedFields(p as never))), flags.output, {
          headers: LIST_HEADERS,
          rows: () => agentRows(pods, now),
          wide: { headers: LIST_WIDE_HEADERS, rows: () => agentWideRows(pods) },
          empty: `No agents found in ${namespace} namespace.`,
        });
      });
    });
  addExamples(list, [
    "# The agents and their nodes\nedgectl agents list",
    "# With Pod IPs, gRPC addresses and images\nedgectl agents list -o wide",
    "# Installed in another namespace, as YAML\nedgectl agents list --proxy-namespace proxy -o yaml",
  ]);

  const describe = withAgentOptions(
    agents
      .command("describe")
      .summary("Show each agent's Pod and what it reports over gRPC")
      .argument("[agent]", "Agent Pod name or node name (default: every agent)"),
  )
    .action(async (name, flags, cmd) => {
      const timeoutMs = parseTimeout(flags.timeout, (m) => cmd.error(m));
      const namespace = flags.agentNamespace ?? flags.proxyNamespace;
      await withSession(cmd, async ({ client }) => {
        const pods = name === undefined
          ? await listAgentPods(client, namespace)
          : [await findAgentPod(client, namespace, name)];
        if (pods.length === 0) {
          throw new CliError(`no agent Pods (${labelSelector("agent")}) in namespace ${namespace}`);
        }
        const reachable = pods.filter((p) => agentAddress(p));
        const results = await callAgents(
          reachable.map((p) => ({ name: p.metadata.name, address: agentAddress(p)! })),
          timeoutMs,
          (c, o) => c.getConfig({}, o),
        );
        io.stdout.write(describeAgents(pods, results, new Date()));
      });
    });
  addExamples(describe, [
    "# Every agent\nedgectl agents describe",
    "# The agent on node worker-1\nedgectl agents describe worker-1 --timeout 2s",
  ]);

  const config = withAgentOptions(
    agents
      .command("config")
      .summary("The config version each agent has applied, side by side"),
  )
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const timeoutMs = parseTimeout(flags.timeout, (m) => cmd.error(m));
      const namespace = flags.agentNamespace ?? flags.proxyNamespace;
      await withSession(cmd, async ({ client }) => {
        const { targets, skipped } = await allAgentTargets(client, namespace);
        const results = await callAgents(targets, timeoutMs, (c, o) => c.getConfig({}, o));
        const ok = results.flatMap((r) => "value" in r ? [{ target: r.target, config: r.value }] : []);
        const { configDocument } = await import("../../internal/edgeproxy/agent_format.ts");
        const items = ok.map((r) => configDocument(r.target, r.config));
        printAgentAnswers(io, flags.output, { results, skipped }, { apiVersion: "v1", kind: "List", items }, {
          headers: CONFIG_HEADERS,
          rows: () => configRows(ok),
        });
      });
    });
  addExamples(config, [
    "# Which config version each agent runs\nedgectl agents config",
    "# As JSON, giving each agent 2 seconds\nedgectl agents config -o json --timeout 2s",
  ]);
}
