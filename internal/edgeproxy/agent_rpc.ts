/**
 * The gRPC side of agent_client.ts: one AgentService client per call, and the failure of a call as one
 * line. Loaded only when a command dials an agent (the Connect and protobuf runtimes are most of what
 * edgectl would otherwise evaluate at start).
 */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CliError } from "../cli/mod.ts";
import { AgentService } from "../proto/edgeproxy/agent/v1/agent_pb.ts";
import type { AgentClient, AgentTarget } from "./agent_client.ts";

/**
 * Runs `fn` against one agent with a deadline of `timeoutMs` per call. Failures become one line
 * naming the agent and the address: unreachable, deadline exceeded, or the agent's own error.
 */
export async function callAgentRpc<T>(
  target: AgentTarget,
  timeoutMs: number,
  fn: (client: AgentClient, options: { timeoutMs: number }) => Promise<T>,
): Promise<T> {
  const transport = createGrpcTransport({ baseUrl: `http://${target.address}` });
  const client = createClient(AgentService, transport);
  try {
    return await fn(client, { timeoutMs });
  } catch (err) {
    throw agentError(target, timeoutMs, err);
  }
}

export function agentError(target: AgentTarget, timeoutMs: number, err: unknown): CliError {
  const who = `agent ${target.name} (${target.address})`;
  if (err instanceof ConnectError) {
    switch (err.code) {
      case Code.DeadlineExceeded:
        return new CliError(`${who} did not answer within ${formatMs(timeoutMs)} (deadline exceeded)`);
      case Code.Unavailable:
        return new CliError(`${who} is unreachable: ${oneLine(err.rawMessage)}`);
      case Code.Unimplemented:
        return new CliError(
          `${who} does not implement this query; is it an older agent? (${oneLine(err.rawMessage)})`,
        );
      default:
        return new CliError(`${who}: ${Code[err.code]}: ${oneLine(err.rawMessage)}`);
    }
  }
  return new CliError(`${who}: ${oneLine(err instanceof Error ? err.message : String(err))}`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
