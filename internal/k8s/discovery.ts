/**
 * API discovery and the REST mapping built from it: which resources the server serves, in which
 * groups and versions, and how a user's type word or a manifest's apiVersion/kind maps to a resource.
 *
 * Discovery uses the aggregated endpoints (`/api` and `/apis` with the apidiscovery.k8s.io/v2 Accept
 * header, two requests for the whole server, Kubernetes >= 1.30) and falls back to the legacy walk
 * over every group version on older servers. Results are cached per client for the process; a miss
 * refreshes once, so a CRD created a moment ago is found.
 *
 *   const d = discoveryFor(client);
 *   const gw = await d.resolve("gw");                   // {group: "edgeproxy.io", resource: "gateways", ...}
 *   const cm = await d.forKind("v1", "ConfigMap");      // {group: "", version: "v1", resource: "configmaps"}
 */
import type { KubeClient } from "./client.ts";
import { NoKindMatchError, UnknownResourceTypeError } from "./errors.ts";

export interface ApiResource {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural, lower-case: "configmaps". */
  resource: string;
  kind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: string[];
  categories: string[];
  /** True for the group's preferred version. */
  preferred: boolean;
}

/** "apps/v1", or "v1" for the core group. */
export function groupVersion(r: Pick<ApiResource, "group" | "version">): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** "deployments.apps", or "configmaps" for the core group: kubectl's name for a resource type. */
export function qualifiedResource(r: Pick<ApiResource, "group" | "resource">): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0 ? { group: "", version: apiVersion } : {
    group: apiVersion.slice(0, i),
    version: apiVersion.slice(i + 1),
  };
}

/** Levenshtein distance; small inputs only (type words). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** Resolves type words and kinds against a fixed set of discovered resources. */
export class RestMapper {
  /** Every resource of every served version, in discovery order (core first, preferred version first). */
  readonly resources: readonly ApiResource[];

  constructor(resources: readonly ApiResource[]) {
    this.resources = resources;
  }

  /**
   * The resource a user's type word names, like kubectl: plural, singular, short name or kind,
   * optionally qualified as `<word>.<group>` or `<word>.<version>.<group>`; case-insensitive. Among
   * several groups the first in discovery order wins (core first). Undefined when nothing matches.
   */
  find(word: string): ApiResource | undefined {
    const w = word.trim().toLowerCase();
    if (!w) return undefined;
    const candidates: { name: string; group?: string; version?: string }[] = [{ name: w }];
    const parts = w.split(".");
    if (parts.length >= 3) {
      candidates.push({ name: parts[0]!, version: parts[1]!, group: parts.slice(2).join(".") });
    }
    if (parts.length >= 2) candidates.push({ name: parts[0]!, group: parts.slice(1).join(".") });
    for (const c of candidates) {
      const pool = this.resources.filter((r) =>
        (c.group === undefined || r.group === c.group) &&
        (c.version === undefined ? r.preferred : r.version === c.version)
      );
      const tiers: ((r: ApiResource) => boolean)[] = [
        (r) => r.resource === c.name,
        (r) => r.singular === c.name,
        (r) => r.shortNames.includes(c.name),
        (r) => r.kind.toLowerCase() === c.name,
      ];
      for (const matches of tiers) {
        const hit = pool.find(matches);
        if (hit) return hit;
      }
    }
    return undefined;
  }

  /** Like find, but throws UnknownResourceTypeError suggesting the nearest known name. */
  resolve(word: string): ApiResource {
    const hit = this.find(word);
    if (hit) return hit;
    throw new UnknownResourceTypeError(word, this.suggest(word));
  }

  /** The nearest known type word (plural, singular, short name, plural.group) by edit distance, if close. */
  suggest(word: string): string | undefined {
    const w = word.trim().toLowerCase();
    let best: { name: string; d: number } | undefined;
    for (const r of this.resources) {
      if (!r.preferred) continue;
      for (const name of [r.resource, r.singular, ...r.shortNames, qualifiedResource(r)]) {
        if (!name) continue;
        const d = editDistance(w, name);
        if (!best || d < best.d) best = { name, d };
      }
    }
    const limit = Math.max(2, Math.floor(w.length / 3));
    return best && best.d <= limit ? best.name : undefined;
  }

  /** The resource for a manifest's apiVersion and kind (kind is case-sensitive, as in manifests). */
  findKind(apiVersion: string, kind: string): ApiResource | undefined {
    const { group, version } = parseGroupVersion(apiVersion);
    return this.resources.find((r) => r.group === group && r.version === version && r.kind === kind);
  }

  /** Like findKind, but throws NoKindMatchError. */
  forKind(apiVersion: string, kind: string): ApiResource {
    const hit = this.findKind(apiVersion, kind);
    if (!hit) throw new NoKindMatchError(apiVersion, kind);
    return hit;
  }
}

// ---- fetching ----------------------------------------------------------------------------------

const AGGREGATED_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

interface AggregatedResource {
  resource: string;
  responseKind?: { group?: string; version?: string; kind?: string };
  scope?: "Namespaced" | "Cluster";
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: AggregatedResource[] }[];
  }[];
}

interface LegacyResourceList {
  groupVersion?: string;
  resources?: {
    name: string;
    singularName?: string;
    namespaced?: boolean;
    kind: string;
    verbs?: string[];
    shortNames?: string[];
    categories?: string[];
  }[];
}

function fromAggregated(list: AggregatedList): ApiResource[] {
  const out: ApiResource[] = [];
  for (const g of list.items ?? []) {
    const group = g.metadata?.name ?? "";
    (g.versions ?? []).forEach((v, i) => {
      for (const r of v.resources ?? []) {
        out.push({
          group,
          version: v.version,
          resource: r.resource,
          kind: r.responseKind?.kind ?? "",
          singular: r.singularResource || (r.responseKind?.kind ?? "").toLowerCase(),
          namespaced: r.scope === "Namespaced",
          shortNames: r.shortNames ?? [],
          verbs: r.verbs ?? [],
          categories: r.categories ?? [],
          preferred: i === 0,
        });
      }
    });
  }
  return out;
}

function fromLegacy(
  group: string,
  version: string,
  preferred: boolean,
  list: LegacyResourceList,
): ApiResource[] {
  return (list.resources ?? []).filter((r) => !r.name.includes("/")).map((r) => ({
    group,
    version,
    resource: r.name,
    kind: r.kind,
    singular: r.singularName || r.kind.toLowerCase(),
    namespaced: r.namespaced === true,
    shortNames: r.shortNames ?? [],
    verbs: r.verbs ?? [],
    categories: r.categories ?? [],
    preferred,
  }));
}

export interface DiscoveryResult {
  resources: ApiResource[];
  /** Group versions that could not be listed (an aggregated API that is down); the rest still work. */
  failedGroupVersions: string[];
  aggregated: boolean;
}

async function aggregated(client: KubeClient, path: "/api" | "/apis"): Promise<AggregatedList | undefined> {
  const res = await client.requestRaw({ path, accept: AGGREGATED_ACCEPT });
  const type = String(res.headers["content-type"] ?? "");
  if (!type.includes("as=APIGroupDiscoveryList")) return undefined;
  return JSON.parse(res.body) as AggregatedList;
}

/** Discovers every served resource: aggregated discovery, else the legacy per-group walk. */
export async function discoverResources(client: KubeClient): Promise<DiscoveryResult> {
  const [core, groups] = await Promise.all([aggregated(client, "/api"), aggregated(client, "/apis")]);
  if (core && groups) {
    return {
      resources: [...fromAggregated(core), ...fromAggregated(groups)],
      failedGroupVersions: [],
      aggregated: true,
    };
  }
  const versions = await client.request<{ versions?: string[] }>({ path: "/api" });
  const groupList = await client.request<{
    groups?: { name: string; versions: { version: string }[]; preferredVersion?: { version: string } }[];
  }>({ path: "/apis" });
  const targets: { group: string; version: string; preferred: boolean; path: string }[] = [];
  (versions.versions ?? []).forEach((v, i) =>
    targets.push({ group: "", version: v, preferred: i === 0, path: `/api/${v}` })
  );
  for (const g of groupList.groups ?? []) {
    const pref = g.preferredVersion?.version ?? g.versions[0]?.version;
    for (const v of g.versions) {
      targets.push({
        group: g.name,
        version: v.version,
        preferred: v.version === pref,
        path: `/apis/${g.name}/${v.version}`,
      });
    }
  }
  const failed: string[] = [];
  const lists = await Promise.all(targets.map(async (t) => {
    try {
      return fromLegacy(
        t.group,
        t.version,
        t.preferred,
        await client.request<LegacyResourceList>({ path: t.path }),
      );
    } catch {
      failed.push(groupVersion(t));
      return [];
    }
  }));
  // Preferred versions first within each group keeps "first match wins" simple.
  return { resources: lists.flat(), failedGroupVersions: failed, aggregated: false };
}

/** Discovery for one client, cached for the process and refreshed once when a lookup misses. */
export class Discovery {
  private cached?: Promise<RestMapper>;
  private refreshing?: Promise<RestMapper>;

  constructor(private readonly client: KubeClient) {}

  /** The current mapper; `refresh` forces a new discovery. */
  mapper(options: { refresh?: boolean } = {}): Promise<RestMapper> {
    if (!this.cached || options.refresh) {
      const p = discoverResources(this.client).then((r) => new RestMapper(r.resources));
      // A failed discovery is not cached.
      p.catch(() => {
        if (this.cached === p) this.cached = undefined;
      });
      this.cached = p;
    }
    return this.cached;
  }

  /** RestMapper.resolve, refreshing once on a miss (a CRD may have just been created). */
  async resolve(word: string): Promise<ApiResource> {
    const hit = (await this.mapper()).find(word);
    if (hit) return hit;
    return (await this.refreshAfterMiss()).resolve(word);
  }

  /** RestMapper.forKind, refreshing once on a miss. */
  async forKind(apiVersion: string, kind: string): Promise<ApiResource> {
    const hit = (await this.mapper()).findKind(apiVersion, kind);
    if (hit) return hit;
    return (await this.refreshAfterMiss()).forKind(apiVersion, kind);
  }

  private refreshAfterMiss(): Promise<RestMapper> {
    // Lookups that miss at the same time share one rediscovery.
    this.refreshing ??= this.mapper({ refresh: true }).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }
}

const discoveries = new WeakMap<KubeClient, Discovery>();

/** The (process-wide, per-client) Discovery for `client`. */
export function discoveryFor(client: KubeClient): Discovery {
  let d = discoveries.get(client);
  if (!d) discoveries.set(client, d = new Discovery(client));
  return d;
}
