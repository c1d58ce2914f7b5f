/**
 * Reading and writing the edge proxy's objects: the REST mapping of a kind found through discovery
 * (so plurals come from the server, never guessed), one object by name or every object of a type
 * (further kinds included: policies list WASMPlugins too), and the manifests `apply` and `delete` send.
 */
import { CliError } from "../cli/mod.ts";
import type { ApiResource, KubeClient, KubeObject, Manifest } from "../k8s/mod.ts";
import { discoveryFor } from "../k8s/discovery.ts";
import { isKubeApiError, NoKindMatchError } from "../k8s/errors.ts";
import { readManifests } from "../k8s/manifests.ts";
import { getObject, listObjects } from "../k8s/resources.ts";
import { API_VERSION, type ResourceType } from "./resources.ts";

/** The field manager of edgectl's writes (`apply`, and the dashboard's apply). */
export const FIELD_MANAGER = "edgectl";

/** The API resource serving `kind` in edgeproxy.io/v1alpha1, from discovery. */
export async function apiResource(client: KubeClient, kind: string): Promise<ApiResource> {
  try {
    return await discoveryFor(client).forKind(API_VERSION, kind);
  } catch (err) {
    if (err instanceof NoKindMatchError) {
      throw new CliError(
        `the server does not serve ${kind} (${API_VERSION}): install the CRDs with \`edgectl install-crds\``,
      );
    }
    throw err;
  }
}

/**
 * One object by name. For types that list further kinds (policies: WASMPlugins too), those are
 * tried when the main kind has no such object; the first NotFound is reported when none has it.
 */
export async function getByName(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string,
): Promise<KubeObject> {
  let notFound: unknown;
  for (const kind of [type.kind, ...(type.alsoLists ?? [])]) {
    try {
      return await getObject(client, await apiResource(client, kind), name, { namespace });
    } catch (err) {
      if (kind !== type.kind && err instanceof CliError) continue;
      if (!isKubeApiError(err, "NotFound")) throw err;
      notFound ??= err;
    }
  }
  throw notFound;
}

/** The objects of a type in one namespace (or all, with `namespace` undefined), further kinds after. */
export async function listByType(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const kind of [type.kind, ...(type.alsoLists ?? [])]) {
    let res;
    try {
      res = await apiResource(client, kind);
    } catch (err) {
      // A further kind whose CRD is missing is simply not listed.
      if (kind !== type.kind && err instanceof CliError) continue;
      throw err;
    }
    const list = await listObjects(
      client,
      res,
      namespace === undefined ? { allNamespaces: true } : { namespace },
    );
    objects.push(...list.items);
  }
  return objects;
}

/**
 * The manifests of `-f` for apply and delete, checked before anything is sent: readManifests
 * already requires apiVersion and kind, and both commands also need each object's name.
 */
export async function readNamedManifests(paths: readonly string[]): Promise<NamedManifest[]> {
  const manifests = await readManifests(paths);
  for (const m of manifests) {
    if (!m.object.metadata?.name) {
      throw new CliError(`${m.source} (document ${m.index}): metadata.name is required`);
    }
  }
  return manifests as NamedManifest[];
}

export interface NamedManifest extends Manifest {
  object: KubeObject & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
}
