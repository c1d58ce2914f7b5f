/**
 * Which agents a command dials, from its flags: one by name (`agent`) or every agent (`cache`), through
 * the API unless --agent-addr names the address, in which case Kubernetes is not contacted.
 */
import type { Command } from "@commander-js/extra-typings";
import {
  type AgentClient,
  type AgentResult,
  type AgentTarget,
  agentTarget,
  allAgentTargets,
  callAgents,
  findAgentPod,
} from "../../internal/edgeproxy/agent_client.ts";
import { kubeNamespace, parseTimeout, withSession } from "./flags.ts";

/** The flags of a command that dials agents: withAgentOptions's, and agentAddrOption's where it has it. */
export interface AgentFlags {
  agentAddr?: string;
  timeout: string;
  proxyNamespace: string;
  agentNamespace?: string;
}

/** The agent named on the command line: by --agent-addr alone, else through the API. */
export async function resolveTarget(cmd: Command, name: string, flags: AgentFlags): Promise<AgentTarget> {
  if (flags.agentAddr) return { name, address: flags.agentAddr };
  return await withSession(cmd, async ({ client }) => {
    const pod = await findAgentPod(client, flags.agentNamespace ?? flags.proxyNamespace, name);
    return agentTarget(pod);
  });
}

type AgentCall<T> = (client: AgentClient, options: { timeoutMs: number }, target: AgentTarget) => Promise<T>;

/**
 * Calls every agent (or the one at --agent-addr) with the call `makeCall` builds for the working
 * namespace: -n, EDGECTL_NAMESPACE or the context's, and "default" when Kubernetes is not used.
 */
export async function onAgents<T>(
  cmd: Command,
  flags: AgentFlags,
  makeCall: (namespace: string) => AgentCall<T>,
): Promise<{ results: AgentResult<T>[]; skipped: string[] }> {
  const timeoutMs = parseTimeout(flags.timeout, (m) => cmd.error(m));
  if (flags.agentAddr) {
    const target = { name: flags.agentAddr, address: flags.agentAddr };
    const namespace = kubeNamespace(cmd) ?? "default";
    return { results: await callAgents([target], timeoutMs, makeCall(namespace)), skipped: [] };
  }
  return await withSession(cmd, async ({ client, namespace }) => {
    const { targets, skipped } = await allAgentTargets(client, flags.agentNamespace ?? flags.proxyNamespace);
    return { results: await callAgents(targets, timeoutMs, makeCall(namespace)), skipped };
  });
}
