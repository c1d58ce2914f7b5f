/**
 * What `edgectl sdwan status` and `sdwan topology` print: a summary of the WAN links and policies,
 * and the overlay as a tree of sites, each with its links (✓ healthy, ✗ unhealthy, ? not probed).
 * Pure functions over the objects, so they are tested without a cluster.
 */
import type { KubeObject } from "../k8s/mod.ts";
import {
  formatLatency,
  formatLoss,
  linkHealthy,
  linkLatencyMs,
  linkLossPercent,
  linkRole,
  slaViolations,
} from "./wan_link.ts";
import { field } from "./field.ts";

export interface SdwanSummary {
  sites: number;
  links: { total: number; healthy: number; unhealthy: number; unknown: number };
  policies: number;
  /** Sites none of whose primary links is healthy: they run on backups, or not at all. */
  degradedSites: string[];
  /** namespace/name and the SLA breaches of each unhealthy link. */
  unhealthyLinks: { namespace: string; name: string; site: string; violations: string[] }[];
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

function siteOf(link: KubeObject): string {
  return str(field(link, "spec.site")) || "<none>";
}

export function summarize(links: readonly KubeObject[], policies: readonly KubeObject[]): SdwanSummary {
  const sites = new Map<string, KubeObject[]>();
  let healthy = 0, unhealthy = 0, unknown = 0;
  const unhealthyLinks: SdwanSummary["unhealthyLinks"] = [];
  for (const link of links) {
    const site = siteOf(link);
    sites.set(site, [...(sites.get(site) ?? []), link]);
    const h = linkHealthy(link);
    if (h === true) healthy++;
    else if (h === false) {
      unhealthy++;
      unhealthyLinks.push({
        namespace: link.metadata?.namespace ?? "",
        name: link.metadata?.name ?? "",
        site,
        violations: slaViolations(link),
      });
    } else unknown++;
  }
  const degradedSites = [...sites].filter(([, ls]) => {
    const primaries = ls.filter((l) => linkRole(l) === "primary");
    return primaries.length > 0 && !primaries.some((l) => linkHealthy(l) === true);
  }).map(([s]) => s).sort();
  return {
    sites: sites.size,
    links: { total: links.length, healthy, unhealthy, unknown },
    policies: policies.length,
    degradedSites,
    unhealthyLinks,
  };
}

export function formatSummary(s: SdwanSummary): string {
  const lines = [
    `Sites:     ${s.sites}`,
    `Links:     ${s.links.total} (${s.links.healthy} healthy, ${s.links.unhealthy} unhealthy, ${s.links.unknown} not probed)`,
    `Policies:  ${s.policies}`,
    `Degraded:  ${s.degradedSites.length === 0 ? "<none>" : s.degradedSites.join(", ")}`,
  ];
  if (s.unhealthyLinks.length > 0) {
    lines.push("Unhealthy links:");
    for (const l of s.unhealthyLinks) {
      const why = l.violations.length > 0 ? `SLA violated: ${l.violations.join(", ")}` : "reported unhealthy";
      lines.push(`  ${l.namespace}/${l.name} (site ${l.site}): ${why}`);
    }
  }
  return lines.join("\n");
}

export interface TopologySite {
  name: string;
  links: {
    namespace: string;
    name: string;
    role: string;
    provider: string;
    remoteSite?: string;
    latency?: string;
    loss?: string;
    healthy?: boolean;
  }[];
}

/** Sites sorted by name, links by role (primary first) then name. */
export function topology(links: readonly KubeObject[]): TopologySite[] {
  const sites = new Map<string, TopologySite>();
  for (const link of links) {
    const name = siteOf(link);
    const site = sites.get(name) ?? { name, links: [] };
    sites.set(name, site);
    const latency = linkLatencyMs(link);
    const loss = linkLossPercent(link);
    const healthy = linkHealthy(link);
    const remote = str(field(link, "spec.remoteSite"));
    site.links.push({
      namespace: link.metadata?.namespace ?? "",
      name: link.metadata?.name ?? "",
      role: linkRole(link),
      provider: str(field(link, "spec.provider")),
      ...(remote ? { remoteSite: remote } : {}),
      ...(latency === undefined ? {} : { latency: formatLatency(latency) }),
      ...(loss === undefined ? {} : { loss: formatLoss(loss) }),
      ...(healthy === undefined ? {} : { healthy }),
    });
  }
  const roleRank = (r: string) => (r === "primary" ? 0 : 1);
  return [...sites.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({
    ...s,
    links: s.links.sort((a, b) => roleRank(a.role) - roleRank(b.role) || a.name.localeCompare(b.name)),
  }));
}

const mark = (h: boolean | undefined) => (h === true ? "✓" : h === false ? "✗" : "?");

export function formatTopology(sites: readonly TopologySite[]): string {
  const lines: string[] = [];
  sites.forEach((site, i) => {
    const lastSite = i === sites.length - 1;
    // ✓ when any link carries traffic, ? before any probe, ✗ when every probed link is down.
    const siteHealthy = site.links.some((l) => l.healthy === true)
      ? true
      : site.links.every((l) => l.healthy === undefined)
      ? undefined
      : false;
    lines.push(`${lastSite ? "└──" : "├──"} ${mark(siteHealthy)} ${site.name}`);
    const indent = lastSite ? "    " : "│   ";
    site.links.forEach((l, j) => {
      const branch = j === site.links.length - 1 ? "└──" : "├──";
      const quality = [l.latency, l.loss].filter(Boolean).join(" ");
      const details = [l.role, l.provider, quality].filter(Boolean).join(", ");
      const remote = l.remoteSite ? ` → ${l.remoteSite}` : "";
      lines.push(`${indent}${branch} ${mark(l.healthy)} ${l.name} (${details})${remote}`);
    });
  });
  return lines.join("\n");
}
