/**
 * Offline analysis of edge proxy manifests, in the spirit of `istioctl analyze`: each finding has a
 * stable code, a level and the resource it is about. The rules only look at the objects given, so a
 * reference to something outside the files counts as missing (as it would after applying only them).
 *
 *   EP0101 Error    a route rule's backendRef names no ProxyBackend in the route's namespace
 *   EP0102 Error    a policy's targetRef names no object of that kind in the policy's namespace
 *   EP0103 Warning  a hostname is claimed by more than one route (or twice by one route)
 *   EP0104 Error    a gateway's vipRef names no ProxyVIP in the gateway's namespace
 *   EP0105 Error    two listeners of one gateway share a port and a hostname
 *   EP0106 Info     a backend no route sends traffic to
 */
import { GROUP, type KubeObject } from "./resources.ts";
import { field } from "./field.ts";

export type Level = "Error" | "Warning" | "Info";
export const LEVELS: readonly Level[] = ["Info", "Warning", "Error"];

export interface Finding {
  code: string;
  level: Level;
  /** "ProxyRoute shop/web" */
  resource: string;
  message: string;
  /** file:document, where the resource was read from. */
  origin?: string;
}

export interface Input {
  object: KubeObject;
  origin?: string;
}

const ROUTE_KINDS = new Set(["ProxyRoute", "TCPRoute", "TLSRoute", "GRPCRoute"]);
const POLICY_KINDS = new Set(["ProxyPolicy", "WASMPlugin", "ProxyWANPolicy"]);

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

interface Item {
  kind: string;
  name: string;
  namespace: string;
  object: KubeObject;
  origin?: string;
}

/** Analyzes the edgeproxy.io objects among `inputs`; others are ignored. `namespace` fills in a missing one. */
export function analyze(inputs: readonly Input[], namespace: string): Finding[] {
  const items: Item[] = inputs
    .filter((i) => String(i.object.apiVersion ?? "").startsWith(`${GROUP}/`))
    .map((i) => ({
      kind: String(i.object.kind),
      name: i.object.metadata?.name ?? "",
      namespace: i.object.metadata?.namespace ?? namespace,
      object: i.object,
      ...(i.origin ? { origin: i.origin } : {}),
    }));
  const has = new Set(items.map((i) => `${i.kind}/${i.namespace}/${i.name}`));
  const exists = (kind: string, ns: string, name: string) => has.has(`${kind}/${ns}/${name}`);
  const findings: Finding[] = [];
  const add = (item: Item, code: string, level: Level, message: string) =>
    findings.push({
      code,
      level,
      resource: `${item.kind} ${item.namespace}/${item.name}`,
      message,
      ...(item.origin ? { origin: item.origin } : {}),
    });

  const usedBackends = new Set<string>();
  const hostClaims = new Map<string, Item[]>();
  for (const item of items) {
    const o = item.object;
    if (ROUTE_KINDS.has(item.kind)) {
      arr(field(o, "spec.rules")).forEach((rule, i) => {
        const refs = [field(rule, "backendRef"), ...arr(field(rule, "backendRefs"))];
        for (const ref of refs) {
          const name = str(field(ref, "name"));
          if (!name) continue;
          const ns = str(field(ref, "namespace")) ?? item.namespace;
          usedBackends.add(`${ns}/${name}`);
          if (!exists("ProxyBackend", ns, name)) {
            add(item, "EP0101", "Error", `rule ${i + 1}: referenced backend not found: "${ns}/${name}"`);
          }
        }
      });
      if (item.kind === "ProxyRoute") {
        const seen = new Set<string>();
        for (const h of arr(field(o, "spec.hostnames"))) {
          const host = String(h).toLowerCase();
          if (seen.has(host)) add(item, "EP0103", "Warning", `hostname "${host}" is listed twice`);
          seen.add(host);
        }
        for (const host of seen) hostClaims.set(host, [...(hostClaims.get(host) ?? []), item]);
      }
    }
    if (POLICY_KINDS.has(item.kind)) {
      const kind = str(field(o, "spec.targetRef.kind"));
      const name = str(field(o, "spec.targetRef.name"));
      if (name && kind) {
        const ns = str(field(o, "spec.targetRef.namespace")) ?? item.namespace;
        if (!exists(kind, ns, name)) {
          add(item, "EP0102", "Error", `policy target not found: ${kind} "${ns}/${name}"`);
        }
      }
    }
    if (item.kind === "ProxyGateway") {
      const vip = str(field(o, "spec.vipRef"));
      if (vip && !exists("ProxyVIP", item.namespace, vip)) {
        add(item, "EP0104", "Error", `referenced VIP not found: "${item.namespace}/${vip}"`);
      }
      const listeners = new Map<string, string>();
      for (const l of arr(field(o, "spec.listeners"))) {
        const port = field(l, "port");
        const hosts = arr(field(l, "hostnames")).map((h) => String(h).toLowerCase());
        for (const host of hosts.length > 0 ? hosts : ["*"]) {
          const key = `${port}/${host}`;
          const other = listeners.get(key);
          const name = str(field(l, "name")) ?? "?";
          if (other !== undefined) {
            add(
              item,
              "EP0105",
              "Error",
              `listeners "${other}" and "${name}" both bind port ${port} for "${host}"`,
            );
          } else listeners.set(key, name);
        }
      }
    }
  }
  for (const [host, routes] of hostClaims) {
    if (routes.length < 2) continue;
    const names = routes.map((r) => `${r.namespace}/${r.name}`);
    for (const route of routes) {
      const others = names.filter((n) => n !== `${route.namespace}/${route.name}`);
      add(route, "EP0103", "Warning", `hostname "${host}" is also claimed by ${others.join(", ")}`);
    }
  }
  for (const item of items) {
    if (item.kind === "ProxyBackend" && !usedBackends.has(`${item.namespace}/${item.name}`)) {
      add(item, "EP0106", "Info", "no route sends traffic to this backend");
    }
  }
  const rank = (l: Level) => LEVELS.indexOf(l);
  return findings.sort((a, b) =>
    rank(b.level) - rank(a.level) || a.code.localeCompare(b.code) || a.resource.localeCompare(b.resource)
  );
}

/** istioctl's log format: `Error [EP0101] (ProxyRoute shop/web) referenced backend not found: "shop/api"`. */
export function formatFinding(f: Finding): string {
  return `${f.level} [${f.code}] (${f.resource}${f.origin ? ` ${f.origin}` : ""}) ${f.message}`;
}
