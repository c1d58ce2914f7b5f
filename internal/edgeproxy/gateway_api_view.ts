/**
 * Gateway API (gateway.networking.k8s.io) objects as `edgectl gateway-api` shows them: kubectl's
 * printer columns for GatewayClasses and Gateways, HTTPRoutes with their parents and acceptance, and
 * the live conformance view (a controller's classes, their conditions and supported features, the
 * Gateways and HTTPRoutes that use them).
 */
import type { Cell } from "../cli/mod.ts";
import { formatTable } from "../cli/mod.ts";
import type { Column, KubeObject } from "./resources.ts";
import { field } from "./field.ts";
import type { Condition } from "../k8s/mod.ts";

export const GATEWAY_GROUP = "gateway.networking.k8s.io";
export const DEFAULT_CONTROLLER = "edgeproxy.io/gateway-controller";

export function conditions(value: unknown): Condition[] {
  return Array.isArray(value) ? value.filter((c) => typeof field(c, "type") === "string") as Condition[] : [];
}

export function conditionStatus(value: unknown, type: string): string | undefined {
  return conditions(value).find((c) => c.type === type)?.status;
}

/** One status for all parents of a route: False if any parent says False, True if all say True. */
export function routeCondition(route: KubeObject, type: string): string | undefined {
  const parents = field(route, "status.parents");
  if (!Array.isArray(parents) || parents.length === 0) return undefined;
  const statuses = parents.map((p) => conditionStatus(field(p, "conditions"), type) ?? "Unknown");
  if (statuses.includes("False")) return "False";
  return statuses.every((s) => s === "True") ? "True" : "Unknown";
}

function parentRefs(route: KubeObject): string[] {
  const refs = field(route, "spec.parentRefs");
  if (!Array.isArray(refs)) return [];
  return refs.map((r) => {
    const ns = field(r, "namespace");
    const name = String(field(r, "name") ?? "");
    const section = field(r, "sectionName");
    return `${typeof ns === "string" ? `${ns}/` : ""}${name}${
      typeof section === "string" ? `:${section}` : ""
    }`;
  });
}

const list = (v: unknown): Cell => (Array.isArray(v) && v.length > 0 ? v.map(String).join(",") : undefined);

export const GATEWAY_CLASS_COLUMNS: Column[] = [
  { header: "CONTROLLER", cell: (o) => field(o, "spec.controllerName") as Cell },
  { header: "ACCEPTED", cell: (o) => conditionStatus(field(o, "status.conditions"), "Accepted") },
];

export const GATEWAY_COLUMNS: Column[] = [
  { header: "CLASS", cell: (o) => field(o, "spec.gatewayClassName") as Cell },
  {
    header: "ADDRESS",
    cell: (o) => {
      const a = field(o, "status.addresses");
      return Array.isArray(a) && a.length > 0 ? String(field(a[0], "value") ?? "") : undefined;
    },
  },
  { header: "PROGRAMMED", cell: (o) => conditionStatus(field(o, "status.conditions"), "Programmed") },
];

export const HTTPROUTE_COLUMNS: Column[] = [
  { header: "HOSTNAMES", cell: (o) => list(field(o, "spec.hostnames")) },
  { header: "PARENTS", cell: (o) => list(parentRefs(o)) },
  { header: "ACCEPTED", cell: (o) => routeCondition(o, "Accepted") },
];

export interface LiveConformance {
  controllerName: string;
  gatewayClasses: { name: string; accepted: boolean; conditions: Condition[]; supportedFeatures: string[] }[];
  gateways: { namespace: string; name: string; class: string; accepted?: string; programmed?: string }[];
  httpRoutes: {
    namespace: string;
    name: string;
    parents: string[];
    accepted?: string;
    resolvedRefs?: string;
  }[];
}

/** The classes of `controllerName` and the Gateways and HTTPRoutes that use them. */
export function liveConformance(
  controllerName: string,
  classes: readonly KubeObject[],
  gateways: readonly KubeObject[],
  routes: readonly KubeObject[],
): LiveConformance {
  const ours = classes.filter((c) => field(c, "spec.controllerName") === controllerName);
  const classNames = new Set(ours.map((c) => c.metadata?.name));
  const ourGateways = gateways.filter((g) => classNames.has(String(field(g, "spec.gatewayClassName"))));
  const gatewayKeys = new Set(ourGateways.map((g) => `${g.metadata?.namespace}/${g.metadata?.name}`));
  const ourRoutes = routes.filter((r) => {
    const refs = field(r, "spec.parentRefs");
    return Array.isArray(refs) && refs.some((ref) => {
      const kind = field(ref, "kind") ?? "Gateway";
      const ns = field(ref, "namespace") ?? r.metadata?.namespace;
      return kind === "Gateway" && gatewayKeys.has(`${ns}/${field(ref, "name")}`);
    });
  });
  return {
    controllerName,
    gatewayClasses: ours.map((c) => {
      const conds = conditions(field(c, "status.conditions"));
      const features = field(c, "status.supportedFeatures");
      return {
        name: c.metadata?.name ?? "",
        accepted: conds.some((x) => x.type === "Accepted" && x.status === "True"),
        conditions: conds.map(({ type, status, reason, message }) => ({
          type,
          status,
          ...(reason ? { reason } : {}),
          ...(message ? { message } : {}),
        })),
        supportedFeatures: Array.isArray(features)
          ? features.map((f) => String(typeof f === "string" ? f : field(f, "name"))).sort()
          : [],
      };
    }),
    gateways: ourGateways.map((g) => ({
      namespace: g.metadata?.namespace ?? "",
      name: g.metadata?.name ?? "",
      class: String(field(g, "spec.gatewayClassName")),
      ...optional("accepted", conditionStatus(field(g, "status.conditions"), "Accepted")),
      ...optional("programmed", conditionStatus(field(g, "status.conditions"), "Programmed")),
    })),
    httpRoutes: ourRoutes.map((r) => ({
      namespace: r.metadata?.namespace ?? "",
      name: r.metadata?.name ?? "",
      parents: parentRefs(r),
      ...optional("accepted", routeCondition(r, "Accepted")),
      ...optional("resolvedRefs", routeCondition(r, "ResolvedRefs")),
    })),
  };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

export function formatLiveConformance(c: LiveConformance): string {
  const lines = [`GatewayClasses of controller ${c.controllerName}:`];
  if (c.gatewayClasses.length === 0) lines.push("  <none>");
  for (const gc of c.gatewayClasses) {
    lines.push(`  ${gc.name}`);
    for (const cond of gc.conditions) {
      lines.push(`    ${cond.type}: ${cond.status}${cond.reason ? ` (${cond.reason})` : ""}`);
    }
    if (gc.conditions.length === 0) lines.push("    <no conditions: the controller has not seen this class>");
    lines.push(
      `    Supported features: ${gc.supportedFeatures.length ? gc.supportedFeatures.join(", ") : "<none>"}`,
    );
  }
  lines.push("", "Gateways:");
  lines.push(
    c.gateways.length === 0 ? "  <none>" : formatTable(
      ["NAMESPACE", "NAME", "CLASS", "ACCEPTED", "PROGRAMMED"],
      c.gateways.map((g) => [g.namespace, g.name, g.class, g.accepted, g.programmed]),
    ).trimEnd(),
  );
  lines.push("", "HTTPRoutes:");
  lines.push(
    c.httpRoutes.length === 0 ? "  <none>" : formatTable(
      ["NAMESPACE", "NAME", "PARENTS", "ACCEPTED", "RESOLVEDREFS"],
      c.httpRoutes.map((r) => [r.namespace, r.name, r.parents.join(","), r.accepted, r.resolvedRefs]),
    ).trimEnd(),
  );
  return lines.join("\n");
}
