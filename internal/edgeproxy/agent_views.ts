/**
 * How the agents and their answers print as tables and text: the agent Pods (`agents list`), what each
 * reports (`agents describe`, `agents config`), their caches (`cache stats|purge`), and the failures of
 * a fan-out. Types only from the generated gRPC code: printing never loads the protobuf runtime.
 */
import { CliError, type Io, type OutputFormat, printResult, type TableSpec } from "../cli/mod.ts";
import { formatAge } from "../k8s/table.ts";
import type { GetCacheStatsResponse, GetConfigResponse } from "../proto/edgeproxy/agent/v1/agent_pb.ts";
import { agentAddress, type AgentPod, type AgentResult, type AgentTarget } from "./agent_client.ts";

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

/** `agents describe`: each agent's Pod, then what it reported over gRPC (or why it did not). */
export function describeAgents(
  pods: readonly AgentPod[],
  results: readonly AgentResult<GetConfigResponse>[],
  now: Date,
): string {
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
  return `${blocks.join("\n\n\n")}\n`;
}

export const CONFIG_HEADERS = [
  "NAME",
  "NODE",
  "CONFIG VERSION",
  "APPLIED AT",
  "GATEWAYS",
  "ROUTES",
  "BACKENDS",
  "VIPS",
] as const;

export function configRows(answers: readonly { target: AgentTarget; config: GetConfigResponse }[]) {
  return answers.map(({ target, config: c }) => [
    target.name,
    c.node || target.node,
    c.configVersion,
    c.appliedAt,
    c.gateways.length,
    c.routes.length,
    c.backendCount,
    c.vipCount,
  ]);
}

/** Bytes as kubectl prints quantities: binary units, at most one decimal. */
export function formatBytes(n: bigint): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = Number(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v}B` : `${Number.isInteger(v) ? v : v.toFixed(1)}${units[i]}`;
}

export function hitRatio(hits: bigint, misses: bigint): string {
  const total = hits + misses;
  return total === 0n ? "<none>" : `${(Number(hits * 1000n / total) / 10).toFixed(1)}%`;
}

export const CACHE_STATS_HEADERS = [
  "AGENT",
  "NODE",
  "ENTRIES",
  "SIZE",
  "MAX SIZE",
  "HITS",
  "MISSES",
  "HIT RATIO",
  "EVICTIONS",
] as const;

export function cacheStatsRows(answers: readonly { target: AgentTarget; stats: GetCacheStatsResponse }[]) {
  return answers.map(({ target, stats: s }) => [
    target.name,
    target.node,
    String(s.entries),
    formatBytes(s.sizeBytes),
    formatBytes(s.maxSizeBytes),
    String(s.hits),
    String(s.misses),
    hitRatio(s.hits, s.misses),
    String(s.evictions),
  ]);
}

/**
 * After a fan-out: a warning per agent skipped for having no address, an error line per failed agent,
 * and the last failure thrown so the command exits 1.
 */
export function reportFailures(io: Io, results: readonly AgentResult<unknown>[], skipped: readonly string[]) {
  for (const name of skipped) io.stderr.write(`warning: agent ${name} has no Pod IP yet; skipped\n`);
  const failed = results.flatMap((r) => "error" in r ? [r.error.message] : []);
  for (const m of failed.slice(0, -1)) io.stderr.write(`error: ${m}\n`);
  if (failed.length) throw new CliError(failed[failed.length - 1]!);
}

/**
 * What several agents answered: `document` as JSON or YAML, or the table of `rows` ("No agent answered."
 * when none did); then, on stderr, the agents skipped and those that failed.
 */
export function printAgentAnswers<T>(
  io: Io,
  format: OutputFormat,
  answers: { results: readonly AgentResult<unknown>[]; skipped: readonly string[] },
  document: T,
  table: Pick<TableSpec<T>, "headers" | "rows">,
) {
  printResult(io, document, format, { ...table, empty: "No agent answered." });
  reportFailures(io, answers.results, answers.skipped);
}
