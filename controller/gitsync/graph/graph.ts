/**
 * An Application's live resource graph (`gitsync graph`, the console's graph page): the objects it
 * manages, found by its label for the kinds its last rollout applied, then the ReplicaSets, Jobs and
 * Pods they own, each with its health. Read with the caller's credentials: kinds the caller may not
 * list are named in `notListed`, never guessed.
 */
import type { KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { discoveryFor } from "../../../internal/k8s/discovery.ts";
import { isKubeApiError } from "../../../internal/k8s/errors.ts";
import { listObjects } from "../../../internal/k8s/resources.ts";
import { type Application, APPLICATION_LABEL } from "../api/mod.ts";
import { assessHealth } from "../health/assess.ts";

export interface GraphNode {
  id: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  health: string;
  message?: string;
}

export interface Graph {
  application: string;
  namespace: string;
  revision?: string;
  nodes: GraphNode[];
  /** owner -> owned, by node id. */
  edges: { from: string; to: string }[];
  /** Kinds the caller may not list: the graph is shallower there. */
  notListed: string[];
}

/** What workloads own, read to show Pods under their controllers. */
const OWNED_KINDS = [
  { apiVersion: "apps/v1", kind: "ReplicaSet" },
  { apiVersion: "batch/v1", kind: "Job" },
  { apiVersion: "v1", kind: "Pod" },
];

const nodeId = (o: KubeObject) =>
  `${o.kind}/${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`;

async function list(
  client: KubeClient,
  kind: { apiVersion: string; kind: string },
  namespace: string,
  labelSelector: string | undefined,
  notListed: string[],
): Promise<KubeObject[]> {
  try {
    const res = await discoveryFor(client).forKind(kind.apiVersion, kind.kind);
    const items = (await listObjects(client, res, {
      ...(res.namespaced ? { namespace } : {}),
      ...(labelSelector ? { labelSelector } : {}),
    })).items;
    return items.map((i) => ({ ...i, apiVersion: kind.apiVersion, kind: kind.kind }));
  } catch (err) {
    if (isKubeApiError(err, 403)) {
      notListed.push(kind.kind);
      return [];
    }
    throw err;
  }
}

export async function buildGraph(client: KubeClient, app: Application): Promise<Graph> {
  const ns = app.metadata!.namespace!;
  const name = app.metadata!.name!;
  const notListed: string[] = [];
  const managedKinds = (app.status?.managedKinds ?? []).map((k) => ({
    apiVersion: k.group ? `${k.group}/${k.version}` : k.version,
    kind: k.kind,
  }));
  const managed = (await Promise.all(
    managedKinds.map((k) => list(client, k, ns, `${APPLICATION_LABEL}=${name}`, notListed)),
  )).flat();
  const owned = (await Promise.all(OWNED_KINDS.map((k) => list(client, k, ns, undefined, notListed)))).flat();

  const nodes = new Map<string, GraphNode>();
  const byUid = new Map<string, string>();
  const add = (o: KubeObject) => {
    const id = nodeId(o);
    if (nodes.has(id)) return;
    const h = assessHealth(o);
    nodes.set(id, {
      id,
      apiVersion: o.apiVersion!,
      kind: o.kind!,
      ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
      name: o.metadata!.name!,
      health: h.status,
      ...(h.message ? { message: h.message } : {}),
    });
    if (o.metadata?.uid) byUid.set(o.metadata.uid, id);
  };
  for (const o of managed) add(o);
  // Owned objects join the graph only below something already in it (walked until nothing changes).
  const edges: { from: string; to: string }[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const o of owned) {
      const owner = (o.metadata?.ownerReferences as { uid: string; controller?: boolean }[] | undefined)
        ?.find((r) => r.controller && byUid.has(r.uid));
      if (!owner || nodes.has(nodeId(o))) continue;
      add(o);
      edges.push({ from: byUid.get(owner.uid)!, to: nodeId(o) });
      grew = true;
    }
  }
  const sorted = [...nodes.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    application: name,
    namespace: ns,
    ...(app.status?.deployedRevision ? { revision: app.status.deployedRevision } : {}),
    nodes: sorted,
    edges: edges.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    notListed: [...new Set(notListed)],
  };
}
