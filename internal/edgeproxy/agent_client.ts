/**
 * Finding agents and calling them over gRPC (AgentService, proto/edgeproxy/agent/v1/agent.proto).
 *
 * An agent is a Pod labelled app.kubernetes.io/name=edgeproxy, app.kubernetes.io/component=agent in
 * --proxy-namespace (proxy_pods.ts); its name on the command line is the Pod's name or its node's.
 * edgectl dials, in order of preference: --agent-addr, the Pod's `edgeproxy.io/agent-address`
 * annotation (host:port, for agents behind a NAT and for tests, whose Pods have fake IPs), then
 * `<pod IP>:9092` without TLS, as the reference does. Every call has a deadline (--timeout). The calls
 * themselves are in agent_rpc.ts, loaded on the first one.
 */
import type { Client } from "@connectrpc/connect";
import { CliError } from "../cli/mod.ts";
import type { KubeClient } from "../k8s/client.ts";
import type { AgentService } from "../proto/edgeproxy/agent/v1/agent_pb.ts";
import { labelSelector, listProxyPods, type Pod } from "./proxy_pods.ts";

export const AGENT_PORT = 9092;
export const AGENT_ADDRESS_ANNOTATION = "edgeproxy.io/agent-address";
export const DEFAULT_TIMEOUT = "5s";

export type AgentClient = Client<typeof AgentService>;

export interface AgentPod extends Pod {
  metadata: Pod["metadata"] & { annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { nodeName?: string; containers: { name: string; image?: string }[] };
  status?: Pod["status"] & {
    podIP?: string;
    hostIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready?: boolean; restartCount?: number; image?: string }[];
  };
}

/** One agent to dial: its name (the Pod's), node and address. */
export interface AgentTarget {
  name: string;
  node?: string;
  address: string;
}

/** The agent, as every JSON/YAML document names it. */
export function agentRef(target: AgentTarget) {
  return { name: target.name, ...(target.node ? { node: target.node } : {}), address: target.address };
}

/** The address to dial for a Pod; undefined when it has no IP yet and no annotation. */
export function agentAddress(pod: AgentPod, override?: string): string | undefined {
  if (override) return override;
  const annotated = pod.metadata.annotations?.[AGENT_ADDRESS_ANNOTATION];
  if (annotated) return annotated;
  const ip = pod.status?.podIP;
  if (!ip) return undefined;
  return ip.includes(":") ? `[${ip}]:${AGENT_PORT}` : `${ip}:${AGENT_PORT}`;
}

export function listAgentPods(client: KubeClient, namespace: string): Promise<AgentPod[]> {
  return listProxyPods(client, namespace, "agent") as Promise<AgentPod[]>;
}

/** The agent Pod named `name` (Pod name first, then node name); a clear error when there is none. */
export async function findAgentPod(client: KubeClient, namespace: string, name: string): Promise<AgentPod> {
  const pods = await listAgentPods(client, namespace);
  const pod = pods.find((p) => p.metadata.name === name) ?? pods.find((p) => p.spec.nodeName === name);
  if (!pod) {
    throw new CliError(
      `agent "${name}" not found: no Pod or node of that name among the agent Pods (${
        labelSelector("agent")
      }) in namespace ${namespace}`,
    );
  }
  return pod;
}

export function agentTarget(pod: AgentPod, override?: string): AgentTarget {
  const address = agentAddress(pod, override);
  if (!address) {
    throw new CliError(
      `agent ${pod.metadata.name} has no Pod IP yet (phase ${pod.status?.phase ?? "Unknown"})`,
    );
  }
  return { name: pod.metadata.name, ...(pod.spec.nodeName ? { node: pod.spec.nodeName } : {}), address };
}

/**
 * Runs `fn` against one agent with a deadline of `timeoutMs` per call. Failures become one line
 * naming the agent and the address: unreachable, deadline exceeded, or the agent's own error. The
 * gRPC stack loads here, on the first call: commands that never dial an agent do not pay for it.
 */
export async function callAgent<T>(
  target: AgentTarget,
  timeoutMs: number,
  fn: (client: AgentClient, options: { timeoutMs: number }) => Promise<T>,
): Promise<T> {
  const { callAgentRpc } = await import("./agent_rpc.ts");
  return await callAgentRpc(target, timeoutMs, fn);
}

export type AgentResult<T> = { target: AgentTarget; value: T } | { target: AgentTarget; error: CliError };

/**
 * Calls every agent, at most `concurrency` at a time, in the order given. One dead agent does not
 * stop the others: its error is returned in its place for the command to report.
 */
export async function callAgents<T>(
  targets: readonly AgentTarget[],
  timeoutMs: number,
  fn: (client: AgentClient, options: { timeoutMs: number }, target: AgentTarget) => Promise<T>,
  concurrency = 16,
): Promise<AgentResult<T>[]> {
  const results: AgentResult<T>[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      const target = targets[i]!;
      try {
        results[i] = { target, value: await callAgent(target, timeoutMs, (c, o) => fn(c, o, target)) };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        results[i] = {
          target,
          error: err instanceof CliError
            ? err
            : new CliError(`agent ${target.name} (${target.address}): ${message}`),
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  return results;
}

/** The agents to call: one address given by --agent-addr, else every agent Pod with an address. */
export async function allAgentTargets(
  client: KubeClient,
  namespace: string,
): Promise<{ targets: AgentTarget[]; skipped: string[] }> {
  const pods = await listAgentPods(client, namespace);
  if (pods.length === 0) {
    throw new CliError(`no agent Pods (${labelSelector("agent")}) in namespace ${namespace}`);
  }
  const targets: AgentTarget[] = [];
  const skipped: string[] = [];
  for (const pod of pods) {
    if (agentAddress(pod)) targets.push(agentTarget(pod));
    else skipped.push(pod.metadata.name);
  }
  return { targets, skipped };
}
