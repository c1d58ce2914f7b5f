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
import { formatAge, listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import {
  agentAddress,
  type AgentPod,
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
  timeoutOption,
  useKubeOptions,
  withSession,
} from "./flags.ts";
import { labelSelector } from "../../internal/edgeproxy/proxy_pods.ts";

function readyCount(pod: AgentPod): string {
  const statuses = pod.status?.containerStatuses ?? [];
  return `${statuses.filter((s) => s.ready).length}/${pod.spec.containers.length}`;
}

function restarts(pod: AgentPod): number {
  return (pod.status?.containerStatuses ?? []).reduce((n, s) => n + (s.restartCount ?? 0), 0);
}

export const LIST_HEADERS = ["NAME", "NODE", "STATUS", "READY", "RESTARTS", "AGE"] as const;
export const LIST_WIDE_HEADERS = ["IP", "AGENT ADDRESS", "IMAGE"] as const;

export function agentRows(pods: readonly AgentPod[], now: Date) {
  return pods.map((p) => [
    p.metadata.name,
    p.spec.nodeName,
    p.status?.phase ?? "Unknown",
    readyCount(p),
    restarts(p),
    formatAge(p.metadata.creationTimestamp, now),
  ]);
}

export function agentWideRows(pods: readonly AgentPod[]) {
  return pods.map((p) => [p.status?.podIP, agentAddress(p), p.spec.containers.map((c) => c.image).join(",")]);
}

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

  const describe = agents
    .command("describe")
    .summary("Show each agent's Pod and what it reports over gRPC")
    .argument("[agent]", "Agent Pod name or node name (default: every agent)")
    .addOption(timeoutOption())
    .addOption(proxyNamespaceOption())
    .addOption(agentNamespaceAlias())
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
        const now = new Date();
        const blocks = pods.map((pod) => {
          const r = results.find((x) => x.target.name === pod.metadata.name);
          const lines = [
            `Name:            ${pod.metadata.name}`,
            `Namespace:       ${pod.metadata.namespace}`,
            `Node:            ${pod.spec.nodeName ?? "<none>"}`,
            `Status:          ${pod.status?.phase ?? "Unknown"}`,
            `IP:              ${pod.status?.podIP ?? "<none>"}`,
            `Agent Address:   ${agentAddress(pod) ?? "<none>"}`,
            `Ready:           ${readyCount(pod)}`,
            `Restarts:        ${restarts(pod)}`,
            `Age:             ${formatAge(pod.metadata.creationTimestamp, now)}`,
            `Image:           ${pod.spec.containers.map((c) => c.image).join(",") || "<none>"}`,
          ];
          if (!r) lines.push("Agent:           <no address>");
          else if ("error" in r) lines.push(`Agent:           <error: ${r.error.message}>`);
          else {
            const c = r.value;
            lines.push(
              "Agent:",
              `  Version:         ${c.agentVersion || "<none>"}`,
              `  Config Version:  ${c.configVersion || "<none>"}`,
              `  Applied At:      ${c.appliedAt || "<none>"}`,
              `  Gateways:        ${c.gateways.length}`,
              `  Routes:          ${c.routes.length}`,
              `  Backends:        ${c.backendCount}`,
              `  VIPs:            ${c.vipCount}`,
            );
          }
          return lines.join("\n");
        });
        io.stdout.write(`${blocks.join("\n\n\n")}\n`);
      });
    });
  addExamples(describe, [
    "# Every agent\nedgectl agents describe",
    "# The agent on node worker-1\nedgectl agents describe worker-1 --timeout 2s",
  ]);

  const config = agents
    .command("config")
    .summary("The config version each agent has applied, side by side")
    .addOption(timeoutOption())
    .addOption(proxyNamespaceOption())
    .addOption(agentNamespaceAlias())
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const timeoutMs = parseTimeout(flags.timeout, (m) => cmd.error(m));
      const namespace = flags.agentNamespace ?? flags.proxyNamespace;
      await withSession(cmd, async ({ client }) => {
        const { targets, skipped } = await allAgentTargets(client, namespace);
        const results = await callAgents(targets, timeoutMs, (c, o) => c.getConfig({}, o));
        const ok = results.flatMap((r) => "value" in r ? [{ target: r.target, config: r.value }] : []);
        const { configDocument } = await import("../../internal/edgeproxy/agent_format.ts");
        printResult(
          io,
          { apiVersion: "v1", kind: "List", items: ok.map((r) => configDocument(r.target, r.config)) },
          flags.output,
          {
            headers: [
              "NAME",
              "NODE",
              "CONFIG VERSION",
              "APPLIED AT",
              "GATEWAYS",
              "ROUTES",
              "BACKENDS",
              "VIPS",
            ],
            rows: () =>
              ok.map(({ target, config: c }) => [
                target.name,
                c.node || target.node,
                c.configVersion,
                c.appliedAt,
                c.gateways.length,
                c.routes.length,
                c.backendCount,
                c.vipCount,
              ]),
            empty: "No agent answered.",
          },
        );
        for (const name of skipped) io.stderr.write(`warning: agent ${name} has no Pod IP yet; skipped\n`);
        const failed = results.flatMap((r) => "error" in r ? [r.error.message] : []);
        for (const m of failed.slice(0, -1)) io.stderr.write(`error: ${m}\n`);
        if (failed.length) throw new CliError(failed[failed.length - 1]!);
      });
    });
  addExamples(config, [
    "# Which config version each agent runs\nedgectl agents config",
    "# As JSON, giving each agent 2 seconds\nedgectl agents config -o json --timeout 2s",
  ]);
}
