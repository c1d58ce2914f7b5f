/**
 * An informer: a local cache of one collection kept current by list + watch, as client-go's
 * reflector does it. It lists (in pages), then watches from the list's resourceVersion with
 * bookmarks, resumes a closed watch from the last resourceVersion seen, relists when the server
 * answers 410 Gone (the version is too old), and backs off on errors. Handlers see add, update and
 * delete events; a relist turns what changed meanwhile into the same events.
 *
 * @example
 * const apps = new Informer<Application>(client, { path: "/apis/sync.gitsync.io/v1alpha1/applications" });
 * apps.onEvent((e) => queue.add(objectKey(e.object)));
 * const stop = new AbortController();
 * void apps.run(stop.signal);
 * await apps.synced;                // the first list is in the cache
 * apps.get("team-a/web");           // from the cache, no request
 */
import type { KubeClient, QueryValue, WatchEvent } from "./client.ts";
import { sleep } from "../async/sleep.ts";
import { KubeApiError } from "./errors.ts";
import { type KubeList, type KubeObject, LAST_APPLIED_ANNOTATION } from "./resources.ts";

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Collection path, e.g. /apis/apps/v1/deployments (all namespaces) or .../namespaces/x/deployments. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list page; default 500. */
  pageSize?: number;
  /** Called on list/watch errors before the informer retries (it never gives up). */
  onError?: (err: unknown) => void;
  /**
   * Cache metadata only (PartialObjectMetadata): labels, owners, managedFields and versions without the
   * objects' contents — for watching many objects to notice changes, not to read them.
   */
  metadataOnly?: boolean;
  /**
   * Applied to every object before it is cached or handed to handlers (client-go's transform): keep only
   * what the handlers need, so a large collection costs little memory. Keep metadata name, namespace and
   * resourceVersion.
   */
  transform?: (o: KubeObject) => T;
  /**
   * A secondary index (client-go's indexer): objects are found by this value with `byIndex`, without
   * a scan of the cache (e.g. the Revisions of one Application among thousands).
   */
  indexBy?: (o: T) => string | undefined;
}

const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

export interface InformerEvent<T extends KubeObject = KubeObject> {
  type: "add" | "update" | "delete";
  object: T;
  /** The cached object an update replaced. */
  old?: T;
}

/**
 * A transform for informers whose handlers never read managedFields or kubectl's last-applied
 * annotation: both are dropped before caching (often the larger part of a small object's metadata).
 */
export function withoutFieldBookkeeping<T extends KubeObject>(o: KubeObject): T {
  const { managedFields: _, ...metadata } = o.metadata ?? {};
  const annotations = metadata.annotations;
  if (annotations && LAST_APPLIED_ANNOTATION in annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _applied, ...rest } = annotations;
    metadata.annotations = rest;
  }
  return { ...o, metadata } as T;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key informers and queues use. */
export function objectKey(o: KubeObject): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : String(m.name);
}

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;

export class Informer<T extends KubeObject = KubeObject> {
  private readonly store = new Map<string, T>();
  private readonly index = new Map<string, Set<string>>();
  private readonly handlers: ((e: InformerEvent<T>) => void)[] = [];
  private resourceVersion = "";
  private markSynced!: () => void;
  /** Resolves once the first list is in the cache. */
  readonly synced: Promise<void> = new Promise((resolve) => (this.markSynced = resolve));
  /** Lists made so far (the first, and one for each 410 Gone or failed watch resume). */
  lists = 0;

  constructor(private readonly client: KubeClient, private readonly options: InformerOptions<T>) {}

  onEvent(handler: (e: InformerEvent<T>) => void): void {
    this.handlers.push(handler);
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  /** The cached objects whose `indexBy` value is `value`. */
  byIndex(value: string): T[] {
    return [...this.index.get(value) ?? []].map((key) => this.store.get(key)!);
  }

  private put(key: string, object: T): void {
    this.remove(key);
    this.store.set(key, object);
    const value = this.options.indexBy?.(object);
    if (value === undefined) return;
    let keys = this.index.get(value);
    if (!keys) this.index.set(value, keys = new Set());
    keys.add(key);
  }

  private remove(key: string): void {
    const old = this.store.get(key);
    if (!old) return;
    this.store.delete(key);
    const value = this.options.indexBy?.(old);
    if (value === undefined) return;
    const keys = this.index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) this.index.delete(value);
  }

  /** Lists and watches until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    let backoff = BACKOFF_MIN_MS;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
          this.markSynced();
        }
        await this.watch(signal);
        backoff = BACKOFF_MIN_MS;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof KubeApiError && err.status === 410) {
          needList = true; // Our resourceVersion is older than etcd keeps: start over.
          continue;
        }
        this.options.onError?.(err);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      }
    }
  }

  private selectors(): Record<string, QueryValue> {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  /** A full list, paged; replaces the cache and reports the difference as events. */
  private async relist(signal: AbortSignal): Promise<void> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = "";
    do {
      const page = await this.client.request<KubeList<T>>({
        path: this.options.path,
        query: { ...this.selectors(), limit: this.options.pageSize ?? 500, continue: cont },
        ...(this.options.metadataOnly ? { accept: METADATA_LIST } : {}),
      });
      for (const item of page.items) {
        fresh.set(objectKey(item), this.options.transform?.(item as KubeObject) ?? item);
      }
      cont = page.metadata?.continue || undefined;
      rv = page.metadata?.resourceVersion ?? rv;
      if (signal.aborted) return;
    } while (cont);
    this.lists++;
    for (const [key, old] of this.store) {
      if (!fresh.has(key)) {
        this.remove(key);
        this.emit({ type: "delete", object: old });
      }
    }
    for (const [key, object] of fresh) {
      const old = this.store.get(key);
      this.put(key, object);
      if (!old) this.emit({ type: "add", object });
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
        this.emit({ type: "update", object, old });
      }
    }
    this.resourceVersion = rv;
  }

  /** One watch from the last resourceVersion until the server closes it (or 410 Gone). */
  private async watch(signal: AbortSignal): Promise<void> {
    const query = {
      ...this.selectors(),
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      // The server ends the watch after this; a fresh one resumes from the last version seen.
      timeoutSeconds: 300 + Math.floor(Math.random() * 300),
    };
    const accept = this.options.metadataOnly ? METADATA : undefined;
    for await (const event of this.client.watch<T>(this.options.path, query, signal, accept)) {
      if (!this.apply(event)) return;
    }
  }

  /** Applies one watch event; false when the watch must end. */
  private apply(event: WatchEvent<T>): boolean {
    const object = event.type === "ERROR" || event.type === "BOOKMARK" || !this.options.transform
      ? event.object
      : this.options.transform(event.object as KubeObject);
    if (event.type === "ERROR") {
      const status = object as unknown as { code?: number; message?: string; reason?: string };
      if (status.code === 410) {
        throw new KubeApiError(410, {
          kind: "Status",
          reason: "Expired",
          message: status.message ?? "too old",
        });
      }
      throw new Error(`watch ${this.options.path}: ${status.message ?? JSON.stringify(status)}`);
    }
    const rv = object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === "BOOKMARK") return true;
    const key = objectKey(object);
    const old = this.store.get(key);
    if (event.type === "DELETED") {
      this.remove(key);
      this.emit({ type: "delete", object: old ?? object });
    } else {
      this.put(key, object);
      this.emit(old ? { type: "update", object, old } : { type: "add", object });
    }
    return true;
  }

  private emit(e: InformerEvent<T>): void {
    for (const h of this.handlers) h(e);
  }
}
