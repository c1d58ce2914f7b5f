/**
 * SD-WAN link quality: the measured latency and loss of a ProxyWANLink, how `edgectl` prints them,
 * and whether the link is healthy. A link whose measurement breaks its SLA is unhealthy even when
 * the agent's last healthy flag still says true (the flag lags one probe behind the numbers).
 */
import type { KubeObject } from "../k8s/mod.ts";
import { field } from "./field.ts";

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function linkLatencyMs(link: KubeObject): number | undefined {
  return num(field(link, "status.latencyMs"));
}

export function linkLossPercent(link: KubeObject): number | undefined {
  return num(field(link, "status.lossPercent"));
}

/** The SLA breaches of a link's measurements, e.g. ["loss 5% > 1%"]; empty when within the SLA. */
export function slaViolations(link: KubeObject): string[] {
  const out: string[] = [];
  const latency = linkLatencyMs(link);
  const loss = linkLossPercent(link);
  const maxLatency = num(field(link, "spec.sla.maxLatencyMs"));
  const maxLoss = num(field(link, "spec.sla.maxLossPercent"));
  if (latency !== undefined && maxLatency !== undefined && latency > maxLatency) {
    out.push(`latency ${formatLatency(latency)} > ${formatLatency(maxLatency)}`);
  }
  if (loss !== undefined && maxLoss !== undefined && loss > maxLoss) {
    out.push(`loss ${formatLoss(loss)} > ${formatLoss(maxLoss)}`);
  }
  return out;
}

/**
 * true or false, or undefined before the first probe: false on an SLA violation, otherwise the
 * agent's status.healthy flag.
 */
export function linkHealthy(link: KubeObject): boolean | undefined {
  if (slaViolations(link).length > 0) return false;
  const flag = field(link, "status.healthy");
  return typeof flag === "boolean" ? flag : undefined;
}

/** 12ms, 0.4ms; whole milliseconds print without decimals. */
export function formatLatency(ms: number): string {
  return `${Number(ms.toFixed(1))}ms`;
}

/** 0%, 0.25%, 5%. */
export function formatLoss(percent: number): string {
  return `${Number(percent.toFixed(2))}%`;
}

export function linkRole(link: KubeObject): string {
  const role = field(link, "spec.role");
  return typeof role === "string" ? role : "primary";
}
