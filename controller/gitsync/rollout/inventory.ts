/**
 * What an Application manages in the cluster: the live objects labelled with its name, of the kinds its
 * desired state has and of status.managedKinds (what the last rollout applied, so a kind removed from Git
 * altogether is still found), listed as its service account. Kinds the account may not list go into
 * `unlisted` and are left out (the caller reports PruneInventoryIncomplete).
 */
import type { KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { discoveryFor } from "../../../internal/k8s/discovery.ts";
import { isKubeApiError } from "../../../internal/k8s/errors.ts";
import { resourcePath } from "../../../internal/k8s/resources.ts";
import { type Application, APPLICATION_LABEL } from "../api/mod.ts";

export async function listManaged(
  sa: KubeClient,
  app: Application,
  desired: KubeObject[] = [],
  unlisted = new Set<string>(),
): Promise<KubeObject[]> {
  const ns = app.metadata!.namespace!;
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  const managed = (app.status?.managedKinds ?? []).map((k) => ({
    apiVersion: k.group ? `${k.group}/${k.version}` : k.version,
    kind: k.kind,
  }));
  for (const x of [...desired, ...managed]) {
    const apiVersion = x.apiVersion ?? "";
    const kind = x.kind ?? "";
    if (apiVersion && kind) kinds.set(`${apiVersion}/${kind}`, { apiVersion, kind });
  }
  const out: KubeObject[] = [];
  for (const x of kinds.values()) {
    const res = await discoveryFor(sa).forKind(x.apiVersion, x.kind);
    try {
      const list = await sa.request<{ items: KubeObject[] }>({
        path: resourcePath(res, { namespace: ns }),
        query: { labelSelector: `${APPLICATION_LABEL}=${app.metadata!.name}` },
      });
      out.push(...list.items.map((i) => ({ ...i, apiVersion: x.apiVersion, kind: x.kind })));
    } catch (err) {
      if (!isKubeApiError(err, 403)) throw err;
      unlisted.add(x.kind);
    }
  }
  return out;
}

/** Finds a desired object's live copy in a listed inventory (by kind, namespace and name). */
export function liveLookup(inventory: KubeObject[], defaultNamespace: string) {
  const key = (o: KubeObject, ns: string | undefined) =>
    `${o.apiVersion}/${o.kind}/${ns ?? ""}/${o.metadata?.name}`;
  const byKey = new Map(inventory.map((o) => [key(o, o.metadata?.namespace), o]));
  return (o: KubeObject) =>
    byKey.get(key(o, o.metadata?.namespace ?? defaultNamespace)) ?? byKey.get(key(o, undefined));
}

/** status.managedKinds: the kinds a rollout applied, for the next prune inventory. */
export function managedKinds(objects: KubeObject[]) {
  const kinds = new Map<string, { group: string; version: string; kind: string }>();
  for (const x of objects) {
    const [group, version] = x.apiVersion!.includes("/") ? x.apiVersion!.split("/") : ["", x.apiVersion!];
    kinds.set(`${x.apiVersion}/${x.kind}`, { group: group!, version: version!, kind: x.kind! });
  }
  return [...kinds.values()];
}
