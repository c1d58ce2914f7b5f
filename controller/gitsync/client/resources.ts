/**
 * The narrow client of gitsync's own kinds: their paths, reads, and the writes the CLI and the
 * reconcilers make (annotations and spec by merge patch, status by its subresource). Over any
 * KubeClient: the CLI's, the console's (read-only), the manager's.
 *
 * @example
 * const app = await getResource<Application>(client, "applications", "shop", "web");
 * await annotate(client, "applications", "shop", "web", { [RETRY_REQUESTED_AT]: new Date().toISOString() });
 */
import type { KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { replacingMergePatch } from "../../../internal/k8s/resources.ts";
import { API_VERSION } from "../api/mod.ts";

/** The plural resource names of gitsync's kinds. */
export type Plural =
  | "applications"
  | "revisions"
  | "repositories"
  | "imagepolicies"
  | "notificationsinks"
  | "healthchecks";

/** The collection path of a gitsync kind, in a namespace or (namespace undefined) across all. */
export function collectionPath(plural: Plural, namespace?: string): string {
  return namespace === undefined
    ? `/apis/${API_VERSION}/${plural}`
    : `/apis/${API_VERSION}/namespaces/${namespace}/${plural}`;
}

/** The path of one object. */
export function objectPath(plural: Plural, namespace: string, name: string): string {
  return `${collectionPath(plural, namespace)}/${name}`;
}

/** The path of `o`, a namespaced object of kind `plural`. */
const pathOf = (plural: Plural, o: KubeObject) =>
  objectPath(plural, o.metadata!.namespace!, o.metadata!.name!);

export function getResource<T>(
  client: KubeClient,
  plural: Plural,
  namespace: string,
  name: string,
): Promise<T> {
  return client.request<T>({ path: objectPath(plural, namespace, name) });
}

export async function listResources<T>(
  client: KubeClient,
  plural: Plural,
  namespace?: string,
  labelSelector?: string,
): Promise<T[]> {
  const list = await client.request<{ items: T[] }>({
    path: collectionPath(plural, namespace),
    ...(labelSelector ? { query: { labelSelector } } : {}),
  });
  return list.items;
}

/** A JSON merge patch of an object (metadata, spec): null removes a field. */
export function mergePatch<T>(
  client: KubeClient,
  plural: Plural,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
): Promise<T> {
  return client.request<T>({
    method: "PATCH",
    path: objectPath(plural, namespace, name),
    contentType: "application/merge-patch+json",
    body,
  });
}

/** Sets (null: removes) annotations on an object. */
export function annotate<T>(
  client: KubeClient,
  plural: Plural,
  namespace: string,
  name: string,
  annotations: Record<string, string | null>,
): Promise<T> {
  return mergePatch<T>(client, plural, namespace, name, { metadata: { annotations } });
}

/**
 * Writes `status` to `o`'s status subresource as a merge patch. With `replacing` (the reconcilers' way
 * for Applications and Revisions) each field given replaces the old value whole, as `o` has it:
 * internal/k8s replacingMergePatch. A null removes a field.
 */
export async function patchStatus<T extends KubeObject & { status?: object }>(
  client: KubeClient,
  plural: Plural,
  o: T,
  status: Record<string, unknown>,
  options: { replacing?: boolean } = {},
): Promise<void> {
  await client.request({
    method: "PATCH",
    path: `${pathOf(plural, o)}/status`,
    contentType: "application/merge-patch+json",
    body: {
      status: options.replacing
        ? replacingMergePatch(o.status as Record<string, unknown> | undefined, status)
        : status,
    },
  });
}
