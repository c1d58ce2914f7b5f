/**
 * `edgectl agent config|backends|vips <agent>`: asks one agent over gRPC what it has applied.
 * The agent is found through the API (internal/edgeproxy/agent_client.ts) unless --agent-addr names the address, in
 * which case Kubernetes is not contacted and <agent> only labels the output.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { type AgentClient, type AgentTarget, callAgent } from "../../internal/edgeproxy/agent_client.ts";
import { agentAddrOption, OUTPUT_ENV, parseTimeout, useKubeOptions, withAgentOptions } from "./flags.ts";
import { resolveTarget } from "./agent_targets.ts";

export function registerAgent(program: Command, io: Io) {
  const agent = program
    .command("agent")
    .summary("Ask one agent over gRPC for its applied config, backends or VIPs")
    .description(
      "Query one edge proxy agent over gRPC (AgentService). <agent> is the name of an agent Pod " +
        "(labels app.kubernetes.io/name=edgeproxy, app.kubernetes.io/component=agent in --proxy-namespace) " +
        "or of the node it runs on. edgectl dials --agent-addr if given (without contacting Kubernetes), " +
        "else the Pod's edgeproxy.io/agent-address annotation, else <pod IP>:9092. " +
        "An agent that cannot be reached or does not answer within --timeout is an error (exit 1).",
    );

  const query = (
    name: string,
    summary: string,
    examples: string[],
    run: (
      client: AgentClient,
      target: AgentTarget,
      opts: { timeoutMs: number },
      format: string,
    ) => Promise<void>,
  ) => {
    const command = withAgentOptions(
      agent
        .command(name)
        .summary(summary)
        .argument("<agent>", "Agent Pod name or node name")
        .addOption(agentAddrOption()),
    )
      .addOption(outputOption({ env: OUTPUT_ENV }))
      .action(async (agentName, flags, cmd) => {
        const timeoutMs = parseTimeout(flags.timeout, (m) => cmd.error(m));
        const target = await resolveTarget(cmd as unknown as Command, agentName, flags);
        await callAgent(target, timeoutMs, (client, opts) => run(client, target, opts, flags.output));
      });
    addExamples(command, examples);
  };

  query("config", "The configuration snapshot the agent applies", [
    "# The config the agent on node worker-1 applies\nedgectl agent config worker-1",
    "# As YAML, from an agent Pod in another namespace\nedgectl agent config edgeproxy-agent-x7k2p --proxy-namespace proxy -o yaml",
  ], async (client, target, opts, format) => {
    const { configDocument, formatConfig } = await import("../../internal/edgeproxy/agent_format.ts");
    const config = await client.getConfig({}, opts);
    printResult(io, configDocument(target, config), format as "table", () => formatConfig(target, config));
  });
  query("backends", "The agent's backends and the health of their endpoints", [
    "# Backends of the agent on worker-1, waiting at most 2 seconds\nedgectl agent backends worker-1 --timeout 2s",
    "# As JSON\nedgectl agent backends worker-1 -o json",
  ], async (client, target, opts, format) => {
    const { BACKEND_HEADERS, backendRows, backendsDocument } = await import(
      "../../internal/edgeproxy/agent_format.ts"
    );
    const { backends } = await client.listBackends({}, opts);
    printResult(io, backendsDocument(target, backends), format as "table", {
      headers: BACKEND_HEADERS,
      rows: () => backendRows(backends),
      empty: `No backends on agent ${target.name}.`,
    });
  });
  query("vips", "The virtual IPs the agent announces or stands by for", [
    "# The VIPs of the agent on worker-1\nedgectl agent vips worker-1",
    "# Through a port-forward, without Kubernetes\nedgectl agent vips worker-1 --agent-addr 127.0.0.1:9092",
  ], async (client, target, opts, format) => {
    const { VIP_HEADERS, vipRows, vipsDocument } = await import("../../internal/edgeproxy/agent_format.ts");
    const { vips } = await client.listVIPs({}, opts);
    printResult(io, vipsDocument(target, vips), format as "table", {
      headers: VIP_HEADERS,
      rows: () => vipRows(vips),
      empty: `No VIPs on agent ${target.name}.`,
    });
  });

  useKubeOptions(agent);
  addExamples(agent, [
    "# The config the agent on node worker-1 applies\nedgectl agent config worker-1",
    "# Its backends as JSON, waiting at most 2 seconds\nedgectl agent backends worker-1 -o json --timeout 2s",
    "# The VIPs of an agent reached through a port-forward\nedgectl agent vips worker-1 --agent-addr 127.0.0.1:9092",
  ]);
}
