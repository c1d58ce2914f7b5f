/** How the agent API's answers print: kubectl-style tables and a describe-like config summary. */
import { toJson } from "@bufbuild/protobuf";
import { formatTable } from "../cli/mod.ts";
import {
  type Backend,
  BackendSchema,
  type GetCacheStatsResponse,
  GetCacheStatsResponseSchema,
  type GetConfigResponse,
  GetConfigResponseSchema,
  type Vip,
  VipSchema,
} from "../proto/edgeproxy/agent/v1/agent_pb.ts";
import { agentRef, type AgentTarget } from "./agent_client.ts";

export { agentRef };

export function configDocument(target: AgentTarget, config: GetConfigResponse) {
  return {
    agent: agentRef(target),
    config: toJson(GetConfigResponseSchema, config, { alwaysEmitImplicit: true }),
  };
}

/** `cache stats` as one List document: each agent's stats, with the namespace they were counted for. */
export function cacheStatsDocument(
  answers: readonly { target: AgentTarget; stats: GetCacheStatsResponse }[],
  namespace: string,
) {
  return {
    apiVersion: "v1",
    kind: "List",
    items: answers.map((r) => ({
      agent: agentRef(r.target),
      ...(namespace ? { namespace } : {}),
      stats: toJson(GetCacheStatsResponseSchema, r.stats, { alwaysEmitImplicit: true }),
    })),
  };
}

export function backendsDocument(target: AgentTarget, backends: readonly Backend[]) {
  return {
    agent: agentRef(target),
    backends: backends.map((b) => toJson(BackendSchema, b, { alwaysEmitImplicit: true })),
  };
}

export function vipsDocument(target: AgentTarget, vips: readonly Vip[]) {
  return {
    agent: agentRef(target),
    vips: vips.map((v) => toJson(VipSchema, v, { alwaysEmitImplicit: true })),
  };
}

/** `agent config` as text: a describe-style header, then the gateways and routes as tables. */
export function formatConfig(target: AgentTarget, c: GetConfigResponse): string {
  const lines = [
    `Agent:           ${target.name}`,
    `Node:            ${c.node || target.node || "<none>"}`,
    `Address:         ${target.address}`,
    `Agent Version:   ${c.agentVersion || "<none>"}`,
    `Config Version:  ${c.configVersion || "<none>"}`,
    `Applied At:      ${c.appliedAt || "<none>"}`,
    `Backends:        ${c.backendCount}`,
    `VIPs:            ${c.vipCount}`,
  ];
  lines.push(`Gateways:${c.gateways.length ? "" : "        <none>"}`);
  if (c.gateways.length) {
    lines.push(indent(formatTable(
      ["NAMESPACE", "NAME", "LISTENERS"],
      c.gateways.map((g) => [
        g.namespace,
        g.name,
        g.listeners.map((l) => `${l.name}/${l.protocol}:${l.port}`).join(","),
      ]),
    )));
  }
  lines.push(`Routes:${c.routes.length ? "" : "          <none>"}`);
  if (c.routes.length) {
    lines.push(indent(formatTable(
      ["NAMESPACE", "NAME", "HOSTNAMES", "RULES"],
      c.routes.map((r) => [r.namespace, r.name, r.hostnames.join(","), r.ruleCount]),
    )));
  }
  return lines.join("\n");
}

function indent(table: string): string {
  return table.trimEnd().split("\n").map((l) => `  ${l}`).join("\n");
}

export const BACKEND_HEADERS = ["NAMESPACE", "NAME", "LB POLICY", "ENDPOINTS", "HEALTHY"] as const;

export function backendRows(backends: readonly Backend[]) {
  return backends.map((b) => [
    b.namespace,
    b.name,
    b.lbPolicy,
    b.endpoints.map((e) => `${e.address}:${e.port}`).join(","),
    `${b.endpoints.filter((e) => e.healthy).length}/${b.endpoints.length}`,
  ]);
}

export const VIP_HEADERS = ["NAME", "ADDRESS", "MODE", "STATE", "INTERFACE"] as const;

export function vipRows(vips: readonly Vip[]) {
  return vips.map((v) => [v.name, v.address, v.mode, v.state, v.interface]);
}
