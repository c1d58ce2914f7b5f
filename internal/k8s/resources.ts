/**
 * Reading and writing Kubernetes objects through a KubeClient and a discovered ApiResource:
 * get, list (one namespace or all, selectors, paging), server-rendered tables, create, replace,
 * patch, delete, server-side apply, kubectl's client-side apply, events of an object, /version.
 *
 *   const res = await discoveryFor(client).resolve("configmaps");
 *   const list = await listObjects(client, res, { namespace: "default", labelSelector: "app=web" });
 *   const r = await applyObject(client, manifest, { fieldManager: "edgectl", serverSide: true });
 */
import type { KubeClient, QueryValue } from "./client.ts";
import { type ApiResource, discoveryFor, groupVersion } from "./discovery.ts";
import { isKubeApiError } from "./errors.ts";

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Record<string, unknown>[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** A status condition (metav1.Condition), as resources record them in status.conditions. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** The API path of a resource collection or object. Cluster-scoped resources ignore `namespace`. */
export function resourcePath(
  res: ApiResource,
  opts: { namespace?: string; name?: string; subresource?: string } = {},
): string {
  const base = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
  const ns = res.namespaced && opts.namespace ? `/namespaces/${encodeURIComponent(opts.namespace)}` : "";
  let path = `${base}${ns}/${res.resource}`;
  if (opts.name !== undefined) {
    if (!opts.name) throw new Error(`a ${res.singular || res.resource} name must not be empty`);
    path += `/${encodeURIComponent(opts.name)}`;
    if (opts.subresource) path += `/${opts.subresource}`;
  }
  return path;
}

/** Namespace to use for `res`: undefined for cluster-scoped resources, else the option or the client's. */
function namespaceFor(client: KubeClient, res: ApiResource, namespace?: string): string | undefined {
  return res.namespaced ? namespace || client.namespace : undefined;
}

export interface ListOptions {
  /** Default: the client's namespace. Ignored for cluster-scoped resources. */
  namespace?: string;
  /** List across all namespaces (`-A`). */
  allNamespaces?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; pages are followed until the end (kubectl's --chunk-size, default 500). */
  chunkSize?: number;
}

function listPath(client: KubeClient, res: ApiResource, opts: ListOptions): string {
  return resourcePath(res, {
    namespace: opts.allNamespaces ? undefined : namespaceFor(client, res, opts.namespace),
  });
}

export async function getObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ApiResource,
  name: string,
  opts: { namespace?: string } = {},
): Promise<T> {
  return await client.request<T>({
    path: resourcePath(res, { namespace: namespaceFor(client, res, opts.namespace), name }),
  });
}

/** Lists objects, following `continue` tokens so the result is complete. */
export async function listObjects<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ApiResource,
  opts: ListOptions = {},
): Promise<KubeList<T>> {
  const path = listPath(client, res, opts);
  const items: T[] = [];
  let cont: string | undefined;
  let first: KubeList<T> | undefined;
  do {
    const page: KubeList<T> = await client.request<KubeList<T>>({
      path,
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.chunkSize ?? 500,
        continue: cont,
      },
    });
    first ??= page;
    items.push(...(page.items ?? []));
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return {
    apiVersion: first.apiVersion,
    kind: first.kind,
    metadata: { resourceVersion: first.metadata?.resourceVersion },
    items,
  };
}

/** meta.k8s.io/v1 Table: the columns the server (or a CRD's additionalPrinterColumns) defines. */
export interface MetaTable {
  columnDefinitions: {
    name: string;
    type: string;
    format?: string;
    description?: string;
    priority?: number;
  }[];
  rows: { cells: unknown[]; object?: KubeObject }[];
}

const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/**
 * The server-rendered table kubectl prints for `get` (one object with `name`, else a list). Rows carry
 * the object's metadata (`includeObject=Metadata`) for the NAMESPACE column and AGE.
 */
export async function getTable(
  client: KubeClient,
  res: ApiResource,
  opts: ListOptions & { name?: string } = {},
): Promise<MetaTable> {
  const path = opts.name !== undefined
    ? resourcePath(res, { namespace: namespaceFor(client, res, opts.namespace), name: opts.name })
    : listPath(client, res, opts);
  const query: Record<string, QueryValue> = { includeObject: "Metadata" };
  if (opts.name === undefined) {
    query.labelSelector = opts.labelSelector;
    query.fieldSelector = opts.fieldSelector;
  }
  const table = await client.request<MetaTable>({ path, query, accept: TABLE_ACCEPT });
  return { columnDefinitions: table.columnDefinitions ?? [], rows: table.rows ?? [] };
}

export interface WriteOptions {
  /** Default: the object's namespace, else the client's. */
  namespace?: string;
  fieldManager?: string;
  /** Server-side dry run: validated and admitted, not stored. */
  dryRun?: boolean;
}

function writeQuery(opts: WriteOptions): Record<string, QueryValue> {
  return { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? "All" : undefined };
}

function objectName(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${obj.kind ?? "object"} has no metadata.name`);
  return name;
}

/** POST: creates the object in its namespace (or the client's, for namespaced resources). */
export function createObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ApiResource,
  obj: KubeObject,
  opts: WriteOptions = {},
): Promise<T> {
  return sendObject<T>(client, "POST", res, obj, opts);
}

/** PUT: replaces the object; needs metadata.resourceVersion for optimistic concurrency (optional). */
export function replaceObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ApiResource,
  obj: KubeObject,
  opts: WriteOptions = {},
): Promise<T> {
  return sendObject<T>(client, "PUT", res, obj, opts);
}

/** The object as the body of a POST to its collection or a PUT to its own path. */
async function sendObject<T extends KubeObject>(
  client: KubeClient,
  method: "POST" | "PUT",
  res: ApiResource,
  obj: KubeObject,
  opts: WriteOptions,
): Promise<T> {
  const namespace = namespaceFor(client, res, opts.namespace || obj.metadata?.namespace);
  const name = method === "PUT" ? objectName(obj) : undefined;
  return await client.request<T>({
    method,
    path: resourcePath(res, { namespace, ...(name ? { name } : {}) }),
    query: writeQuery(opts),
    body: obj,
  });
}

export type PatchType = "merge" | "json" | "strategic" | "apply";

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export async function patchObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ApiResource,
  name: string,
  patch: unknown,
  opts: WriteOptions & { type?: PatchType; force?: boolean; subresource?: string } = {},
): Promise<T> {
  return await client.request<T>({
    method: "PATCH",
    path: resourcePath(res, {
      namespace: namespaceFor(client, res, opts.namespace),
      name,
      subresource: opts.subresource,
    }),
    query: { ...writeQuery(opts), force: opts.force ? true : undefined },
    body: patch,
    contentType: PATCH_CONTENT_TYPES[opts.type ?? "merge"],
  });
}

export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  /** 0 with force deletes immediately (kubectl --force --grace-period=0). */
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/**
 * Deletes one object. Returns what the server returns: the object (still there while finalizers or
 * a grace period run) or a Status.
 */
export async function deleteObject(
  client: KubeClient,
  res: ApiResource,
  name: string,
  opts: DeleteOptions = {},
): Promise<KubeObject> {
  const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
  if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.dryRun) body.dryRun = ["All"];
  return await client.request<KubeObject>({
    method: "DELETE",
    path: resourcePath(res, { namespace: namespaceFor(client, res, opts.namespace), name }),
    body,
  });
}

export interface ApplyOptions {
  /** Namespace for namespaced objects without one (default: the client's). */
  namespace?: string;
  /** Field manager; kubectl uses "kubectl-client-side-apply" / "kubectl". */
  fieldManager: string;
  /** Server-side apply (PATCH application/apply-patch+yaml); otherwise kubectl's client-side apply. */
  serverSide?: boolean;
  /** Server-side apply: take ownership of fields other managers own. */
  force?: boolean;
  dryRun?: boolean;
}

export type ApplyAction = "created" | "configured" | "unchanged" | "serverside-applied";

export interface ApplyResult {
  action: ApplyAction;
  resource: ApiResource;
  object: KubeObject;
}

/** The manifest as it will be sent: apiVersion/kind checked, namespace defaulted or dropped. */
function prepare(client: KubeClient, res: ApiResource, obj: KubeObject, namespace?: string): KubeObject {
  objectName(obj);
  const metadata = { ...obj.metadata };
  if (res.namespaced) metadata.namespace = metadata.namespace || namespace || client.namespace;
  else delete metadata.namespace;
  return { ...obj, metadata };
}

/** Server-side apply of one object; creates it when missing. */
export async function serverSideApply(
  client: KubeClient,
  res: ApiResource,
  obj: KubeObject,
  opts: Omit<ApplyOptions, "serverSide">,
): Promise<KubeObject> {
  const o = prepare(client, res, obj, opts.namespace);
  return await patchObject(client, res, o.metadata!.name!, o, {
    type: "apply",
    namespace: o.metadata!.namespace,
    fieldManager: opts.fieldManager,
    force: opts.force,
    dryRun: opts.dryRun,
  });
}

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isMap(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isMap(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

/**
 * client-go's three-way JSON merge patch (CreateThreeWayJSONMergePatch): fields removed since the
 * last apply become null, fields whose desired value differs from the live object are set; fields
 * other writers added are left alone. Lists are replaced whole (JSON merge patch semantics).
 */
export function threeWayMergePatch(
  original: Record<string, unknown>,
  modified: Record<string, unknown>,
  current: Record<string, unknown>,
): Record<string, unknown> {
  const deletions = (o: Record<string, unknown>, m: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) {
      if (!(k in m)) out[k] = null;
      else if (isMap(o[k]) && isMap(m[k])) {
        const d = deletions(o[k] as Record<string, unknown>, m[k] as Record<string, unknown>);
        if (Object.keys(d).length) out[k] = d;
      }
    }
    return out;
  };
  const changes = (c: Record<string, unknown>, m: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(m)) {
      if (isMap(m[k]) && isMap(c[k])) {
        const d = changes(c[k] as Record<string, unknown>, m[k] as Record<string, unknown>);
        if (Object.keys(d).length) out[k] = d;
      } else if (!deepEqual(c[k], m[k])) out[k] = m[k];
    }
    return out;
  };
  const merge = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) {
      out[k] = isMap(out[k]) && isMap(v) ? merge(out[k] as Record<string, unknown>, v) : v;
    }
    return out;
  };
  return merge(deletions(original, modified), changes(current, modified));
}

/**
 * A JSON merge patch under which each field of `fields` replaces the current value whole. A plain merge
 * patch merges nested objects, so a key the new value no longer has would stay (a status keeping a root
 * cause the controller has cleared); here such keys become null. `current` is the object being patched
 * as the caller last read it; its fields that `fields` does not name are left alone, and a null in
 * `fields` removes the field. For status writes: `{ status: replacingMergePatch(obj.status, next) }`.
 */
export function replacingMergePatch(
  current: Record<string, unknown> | undefined,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const whole = (was: unknown, value: unknown): unknown => {
    if (!isMap(was) || !isMap(value)) return value;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(was)) if (!(k in value)) out[k] = null;
    for (const [k, v] of Object.entries(value)) out[k] = whole(was[k], v);
    return out;
  };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, whole(current?.[k], v)]));
}

/**
 * Patches an object's status subresource at `path` (the object's path) with `build(current)`, written
 * with replacingMergePatch and locked to `current`'s resourceVersion; when `current` is behind (409), it
 * reads the object afresh and builds again (three attempts). For writers whose copy comes from a cache
 * that may lag behind another writer's change of the same list (conditions go whole in a merge patch).
 */
export async function patchStatusLocked<T extends KubeObject & { status?: Record<string, unknown> }>(
  client: KubeClient,
  path: string,
  current: T,
  build: (current: T) => Record<string, unknown>,
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await client.request({
        method: "PATCH",
        path: `${path}/status`,
        contentType: "application/merge-patch+json",
        body: {
          metadata: { resourceVersion: current.metadata?.resourceVersion },
          status: replacingMergePatch(current.status, build(current)),
        },
      });
      return;
    } catch (err) {
      if (!isKubeApiError(err, 409) || attempt === 3) throw err;
      current = await client.request<T>({ path });
    }
  }
}

/**
 * kubectl's client-side apply (`kubectl apply` without --server-side): creates the object with a
 * last-applied-configuration annotation, or patches the live object with a three-way merge patch
 * computed from that annotation, the manifest and the live object. Built-in types are patched with a
 * JSON merge patch as well (kubectl uses a strategic merge patch there), so lists are replaced whole.
 */
export async function clientSideApply(
  client: KubeClient,
  res: ApiResource,
  obj: KubeObject,
  opts: Omit<ApplyOptions, "serverSide" | "force">,
): Promise<ApplyResult> {
  const o = prepare(client, res, obj, opts.namespace);
  const name = o.metadata!.name!;
  const namespace = o.metadata!.namespace;
  // The annotation holds the manifest without the annotation itself.
  const annotations = { ...o.metadata!.annotations };
  delete annotations[LAST_APPLIED_ANNOTATION];
  const bareMeta: ObjectMeta = { ...o.metadata };
  if (Object.keys(annotations).length) bareMeta.annotations = annotations;
  else delete bareMeta.annotations;
  const bare: KubeObject = { ...o, metadata: bareMeta };
  const modified = {
    ...bare,
    metadata: {
      ...bare.metadata,
      annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(bare)}\n` },
    },
  };
  let live: KubeObject;
  try {
    live = await getObject(client, res, name, { namespace });
  } catch (err) {
    if (!isKubeApiError(err, "NotFound")) throw err;
    const created = await createObject(client, res, modified, {
      namespace,
      fieldManager: opts.fieldManager,
      dryRun: opts.dryRun,
    });
    return { action: "created", resource: res, object: created };
  }
  let original: Record<string, unknown> = {};
  const lastApplied = live.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (lastApplied) {
    try {
      original = JSON.parse(lastApplied);
    } catch {
      // A corrupt annotation: behave as if there were none (no deletions), as kubectl does for empty.
    }
  }
  const patch = threeWayMergePatch(original, modified, live);
  if (Object.keys(patch).length === 0) return { action: "unchanged", resource: res, object: live };
  const patched = await patchObject(client, res, name, patch, {
    type: "merge",
    namespace,
    fieldManager: opts.fieldManager,
    dryRun: opts.dryRun,
  });
  return { action: "configured", resource: res, object: patched };
}

/**
 * Applies one manifest: finds its resource through discovery (apiVersion + kind), then server-side
 * or client-side apply.
 */
export async function applyObject(
  client: KubeClient,
  obj: KubeObject,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  if (!obj.apiVersion || !obj.kind) throw new Error("the object has no apiVersion or kind");
  const res = await discoveryFor(client).forKind(obj.apiVersion, obj.kind);
  if (!opts.serverSide) return await clientSideApply(client, res, obj, opts);
  const object = await serverSideApply(client, res, obj, opts);
  return { action: "serverside-applied", resource: res, object };
}

/** The core/v1 Events about an object, oldest first (as `kubectl describe` lists them). */
export async function listEvents(
  client: KubeClient,
  obj: KubeObject,
): Promise<KubeObject[]> {
  const m = obj.metadata ?? {};
  const selector = [
    m.name && `involvedObject.name=${m.name}`,
    obj.kind && `involvedObject.kind=${obj.kind}`,
    m.uid && `involvedObject.uid=${m.uid}`,
  ].filter(Boolean).join(",");
  const path = m.namespace
    ? `/api/v1/namespaces/${encodeURIComponent(m.namespace)}/events`
    : "/api/v1/events";
  const list = await client.request<KubeList>({ path, query: { fieldSelector: selector } });
  const time = (e: KubeObject) =>
    Date.parse(
      String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? ""),
    ) ||
    0;
  return [...(list.items ?? [])].sort((a, b) => time(a) - time(b));
}

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  buildDate?: string;
  goVersion?: string;
  platform?: string;
}

/** GET /version. */
export async function serverVersion(client: KubeClient): Promise<ServerVersion> {
  return await client.request<ServerVersion>({ path: "/version" });
}

/** "configmap/web" or "gateway.edgeproxy.io/main": kubectl's name for an object in messages. */
export function objectRef(res: ApiResource, name: string): string {
  const kind = res.kind.toLowerCase();
  return res.group ? `${kind}.${res.group}/${name}` : `${kind}/${name}`;
}

export { groupVersion };
