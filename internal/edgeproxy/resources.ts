/**
 * The edge proxy's resource types (API group edgeproxy.io/v1alpha1): the names `edgectl` accepts for
 * each, and the columns its tables show. The CRDs in crds/edgeproxy.io/ declare the same kinds, plurals
 * and short names (resources_test.ts checks that they agree).
 */
import type { Cell } from "../cli/mod.ts";
import type { KubeObject } from "../k8s/mod.ts";
import { editDistance } from "../k8s/discovery.ts";
import {
  formatLatency,
  formatLoss,
  linkHealthy,
  linkLatencyMs,
  linkLossPercent,
  linkRole,
} from "./wan_link.ts";
import { field } from "./field.ts";

export const GROUP = "edgeproxy.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

export type { KubeObject };

/** A table column after NAME (and NAMESPACE with -A); AGE is added by the printer. */
export interface Column {
  header: string;
  cell(object: KubeObject): Cell;
}

export interface ResourceType {
  kind: string;
  /** The CRD's plural, the resource name in API paths. */
  plural: string;
  /** The names section 2 of the contract gives; the first one is how help and errors name the type. */
  aliases: readonly string[];
  /** The CRD's short names (a subset of the aliases that do not collide with built-in resources). */
  shortNames: readonly string[];
  columns: readonly Column[];
  /**
   * Further kinds a list of this type includes: `get policies` also lists WASMPlugins, as policies of
   * type WASMPlugin. Only listing and reading by name look at them; delete never does.
   */
  alsoLists?: readonly string[];
}

type Json = unknown;

function text(value: Json): string | undefined {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined;
}

function count(value: Json): number {
  return Array.isArray(value) ? value.length : 0;
}

/** The status of the Ready condition ("True", "False", "Unknown"), or undefined when there is none. */
export function readyStatus(object: KubeObject): string | undefined {
  const conditions = field(object, "status.conditions");
  if (!Array.isArray(conditions)) return undefined;
  const ready = conditions.find((c) => field(c, "type") === "Ready");
  return text(field(ready, "status"));
}

const ready: Column = { header: "READY", cell: readyStatus };

function target(object: KubeObject): string | undefined {
  const kind = text(field(object, "spec.targetRef.kind"));
  const name = text(field(object, "spec.targetRef.name"));
  if (!name) return undefined;
  return kind ? `${kind}/${name}` : name;
}

const policyColumns = (type: (o: KubeObject) => Cell): Column[] => [
  { header: "TYPE", cell: type },
  { header: "TARGET", cell: target },
];

/** SITE ROLE PROVIDER LATENCY LOSS HEALTHY: `get wanlinks` and `sdwan links` print the same columns. */
export const WAN_LINK_COLUMNS: readonly Column[] = [
  { header: "SITE", cell: (o) => text(field(o, "spec.site")) },
  { header: "ROLE", cell: linkRole },
  { header: "PROVIDER", cell: (o) => text(field(o, "spec.provider")) },
  { header: "LATENCY", cell: (o) => mapDefined(linkLatencyMs(o), formatLatency) },
  { header: "LOSS", cell: (o) => mapDefined(linkLossPercent(o), formatLoss) },
  { header: "HEALTHY", cell: (o) => mapDefined(linkHealthy(o), String) },
];

function mapDefined<T>(value: T | undefined, f: (v: T) => string): string | undefined {
  return value === undefined ? undefined : f(value);
}

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    kind: "ProxyGateway",
    plural: "proxygateways",
    aliases: ["gateways", "gateway", "gw"],
    shortNames: ["gw"],
    columns: [
      { header: "VIP", cell: (o) => text(field(o, "spec.vipRef")) },
      { header: "LISTENERS", cell: (o) => count(field(o, "spec.listeners")) },
      ready,
    ],
  },
  {
    kind: "ProxyRoute",
    plural: "proxyroutes",
    aliases: ["routes", "route", "rt"],
    shortNames: ["rt"],
    columns: [
      {
        header: "HOSTNAMES",
        cell: (o) => {
          const hostnames = field(o, "spec.hostnames");
          return Array.isArray(hostnames) ? hostnames.map(String).join(",") : undefined;
        },
      },
      { header: "RULES", cell: (o) => count(field(o, "spec.rules")) },
      ready,
    ],
  },
  {
    kind: "ProxyBackend",
    plural: "proxybackends",
    aliases: ["backends", "backend", "be"],
    shortNames: ["be"],
    columns: [
      {
        header: "SERVICE",
        cell: (o) => {
          const name = text(field(o, "spec.serviceRef.name"));
          const port = text(field(o, "spec.serviceRef.port"));
          return name && port ? `${name}:${port}` : name;
        },
      },
      { header: "LB POLICY", cell: (o) => text(field(o, "spec.lbPolicy")) },
      // Written by the controller; <none> until it has resolved the Service.
      { header: "ENDPOINTS", cell: (o) => text(field(o, "status.endpoints")) },
      ready,
    ],
  },
  {
    kind: "ProxyVIP",
    plural: "proxyvips",
    aliases: ["vips", "vip"],
    shortNames: ["vip"],
    columns: [
      { header: "VIP", cell: (o) => text(field(o, "spec.address")) },
      { header: "MODE", cell: (o) => text(field(o, "spec.mode")) },
      ready,
    ],
  },
  {
    kind: "ProxyPolicy",
    plural: "proxypolicies",
    aliases: ["policies", "policy", "pol"],
    shortNames: ["pol"],
    columns: policyColumns((o) => o.kind === "WASMPlugin" ? "WASMPlugin" : text(field(o, "spec.type"))),
    alsoLists: ["WASMPlugin"],
  },
  {
    kind: "TCPRoute",
    plural: "tcproutes",
    aliases: ["tcproutes", "tcproute"],
    shortNames: [],
    columns: [ready],
  },
  {
    kind: "TLSRoute",
    plural: "tlsroutes",
    aliases: ["tlsroutes", "tlsroute"],
    shortNames: [],
    columns: [ready],
  },
  {
    kind: "GRPCRoute",
    plural: "grpcroutes",
    aliases: ["grpcroutes", "grpcroute"],
    shortNames: [],
    columns: [ready],
  },
  { kind: "IPPool", plural: "ippools", aliases: ["ippools", "ippool"], shortNames: [], columns: [ready] },
  {
    kind: "WASMPlugin",
    plural: "wasmplugins",
    aliases: ["wasmplugins", "wasmplugin", "wasm"],
    shortNames: ["wasm"],
    columns: policyColumns(() => "WASMPlugin"),
  },
  {
    kind: "Certificate",
    plural: "certificates",
    aliases: ["certificates", "certificate", "cert"],
    shortNames: ["cert"],
    columns: [ready],
  },
  {
    kind: "ProxyWANLink",
    plural: "proxywanlinks",
    aliases: ["wanlinks", "wanlink"],
    shortNames: ["wanlink"],
    columns: WAN_LINK_COLUMNS,
  },
  {
    kind: "ProxyWANPolicy",
    plural: "proxywanpolicies",
    aliases: ["wanpolicies", "wanpolicy", "wanpol"],
    shortNames: ["wanpol"],
    columns: [{ header: "STRATEGY", cell: (o) => text(field(o, "spec.strategy")) }, ready],
  },
  {
    kind: "ProxyFederation",
    plural: "proxyfederations",
    aliases: ["federations", "federation", "fed"],
    shortNames: ["fed"],
    columns: [
      { header: "FEDERATION ID", cell: (o) => text(field(o, "spec.federationId")) },
      { header: "LOCAL MEMBER", cell: (o) => text(field(o, "spec.localMember.name")) },
      { header: "PHASE", cell: (o) => text(field(o, "status.phase")) },
    ],
  },
  {
    kind: "ProxyCluster",
    plural: "proxyclusters",
    aliases: ["clusters", "cluster"],
    shortNames: [],
    columns: [
      { header: "REGION", cell: (o) => text(field(o, "spec.region")) },
      { header: "FEDERATION", cell: (o) => text(field(o, "spec.federationRef.name")) },
      {
        header: "AGENTS",
        cell: (o) => {
          const total = text(field(o, "status.agents.total"));
          return total === undefined ? undefined : `${text(field(o, "status.agents.ready")) ?? 0}/${total}`;
        },
      },
      ready,
    ],
  },
];

export function resourceTypeOfKind(kind: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.kind === kind);
}

/** Every spelling a type may be given in, mapped to its type: aliases, plural, kind, with or without `.edgeproxy.io`. */
const NAMES: ReadonlyMap<string, ResourceType> = new Map(
  RESOURCE_TYPES.flatMap((type) => {
    const names = new Set([...type.aliases, type.plural, type.kind.toLowerCase()]);
    return [...names].flatMap((n) => [[n, type], [`${n}.${GROUP}`, type]] as const);
  }),
);

/** The type a user's word names (case-insensitive), or undefined. */
export function lookupResourceType(word: string): ResourceType | undefined {
  return NAMES.get(word.toLowerCase());
}

/** Every accepted name without the group suffix, for help texts and suggestions. */
export function resourceTypeNames(): string[] {
  return [...NAMES.keys()].filter((n) => !n.endsWith(`.${GROUP}`));
}

/**
 * Resolves a type word or a comma-separated list of them (`gateways,routes`). Throws an error that
 * names the first unknown word and the nearest known name.
 */
export function resolveResourceTypes(words: string): ResourceType[] {
  const types: ResourceType[] = [];
  for (const word of words.split(",")) {
    const type = lookupResourceType(word.trim());
    if (!type) throw new UnknownTypeError(word.trim());
    if (!types.includes(type)) types.push(type);
  }
  return types;
}

export class UnknownTypeError extends Error {
  override name = "UnknownTypeError";
  constructor(readonly word: string) {
    const near = nearestName(word);
    super(
      `unknown resource type "${word}"` + (near ? ` (did you mean "${near}"?)` : "") +
        `; known types: ${RESOURCE_TYPES.map((t) => t.aliases[0]).join(", ")}`,
    );
  }
}

/** The accepted name closest to `word` by edit distance, if it is close enough to be a likely typo. */
export function nearestName(word: string): string | undefined {
  const w = word.toLowerCase().replace(new RegExp(`\\.${GROUP.replace(".", "\\.")}$`), "");
  let best: { name: string; distance: number } | undefined;
  for (const name of resourceTypeNames()) {
    const distance = editDistance(w, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(w.length / 3)) ? best.name : undefined;
}
