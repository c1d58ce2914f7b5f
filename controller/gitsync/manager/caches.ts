/**
 * The manager's caches and work queues: one informer and one queue per kind (without managedFields:
 * nothing here reads them), wired so that a change queues what depends on it. A Repository's new commit
 * queues the Applications of its namespace; an Application's change (a new desired Revision, an approval
 * recorded by the webhook) queues its desired Revision; a Revision's own changes queue it again; an
 * ImagePolicy's change queues it and the Repositories of its namespace that write images back. With
 * --drift-watch-kinds, a changed managed object asks for its Application's drift check at once.
 */
import {
  Informer,
  type KubeClient,
  objectKey,
  withoutFieldBookkeeping,
  WorkQueue,
} from "../../../internal/k8s/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import {
  API_VERSION,
  type Application,
  type ImagePolicy,
  type Repository,
  type Revision,
} from "../api/mod.ts";
import { watchManagedObjects } from "../drift_watch.ts";

export interface Caches {
  repos: Informer<Repository>;
  apps: Informer<Application>;
  revs: Informer<Revision>;
  policies: Informer<ImagePolicy>;
  repoQ: WorkQueue<string>;
  appQ: WorkQueue<string>;
  revQ: WorkQueue<string>;
  policyQ: WorkQueue<string>;
  /** Deployed Revisions whose managed objects changed (the drift watch), checked at their next reconcile. */
  driftSuspected: Set<string>;
  /** The running informers (and watches); they end when the signal aborts. */
  running: Promise<void>[];
  /** Resolves once gitsync's kinds are listed (readyz turns ok). */
  synced: Promise<void>;
}

export interface CachesOptions {
  client: KubeClient;
  log: Logger;
  /** --drift-resync-interval; 0 turns drift off, and with it the drift watch. */
  driftIntervalMs?: number;
  /** --drift-watch-kinds. */
  driftWatchKinds?: string[];
}

/** Starts the informers (and the drift watch) and wires them to the queues. */
export async function startCaches(o: CachesOptions, signal: AbortSignal): Promise<Caches> {
  const onError = (kind: string) => (err: unknown) =>
    o.log.warn("watch failed; retrying", { kind, error: (err as Error).message });
  const informer = <T extends Repository | Application | Revision | ImagePolicy>(
    kind: string,
    plural: string,
    indexBy?: (o: T) => string,
  ) =>
    new Informer<T>(o.client, {
      path: `/apis/${API_VERSION}/${plural}`,
      onError: onError(kind),
      transform: withoutFieldBookkeeping,
      ...(indexBy ? { indexBy } : {}),
    });
  const c: Caches = {
    repos: informer<Repository>("Repository", "repositories"),
    apps: informer<Application>("Application", "applications"),
    revs: informer<Revision>(
      "Revision",
      "revisions",
      (r) => `${r.metadata?.namespace}/${r.spec.applicationRef.name}`,
    ),
    policies: informer<ImagePolicy>("ImagePolicy", "imagepolicies"),
    repoQ: new WorkQueue<string>(),
    appQ: new WorkQueue<string>(),
    revQ: new WorkQueue<string>(),
    policyQ: new WorkQueue<string>(),
    driftSuspected: new Set<string>(),
    running: [],
    synced: Promise.resolve(),
  };
  wire(c);
  c.running = [c.repos, c.apps, c.revs, c.policies].map((i) => i.run(signal));
  // Drift on watched kinds: a changed managed object asks for its Application's drift check now.
  if (o.driftWatchKinds?.length && (o.driftIntervalMs ?? 1) > 0) {
    c.running.push(
      ...await watchManagedObjects({
        client: o.client,
        kinds: o.driftWatchKinds,
        signal,
        log: o.log,
        changed: (ns, name) => {
          const deployed = c.apps.get(`${ns}/${name}`)?.status?.deployedRevision;
          if (!deployed) return;
          c.driftSuspected.add(`${ns}/${deployed}`);
          c.revQ.add(`${ns}/${deployed}`);
        },
      }),
    );
  }
  c.synced = Promise.all([c.repos.synced, c.apps.synced, c.revs.synced, c.policies.synced]).then(() => {});
  return c;
}

/** What a change queues; see the module comment. */
function wire(c: Caches) {
  c.policies.onEvent((e) => {
    c.policyQ.add(objectKey(e.object));
    const ns = e.object.metadata?.namespace;
    for (const r of c.repos.list()) {
      if (r.metadata?.namespace === ns && r.spec.imageUpdate) c.repoQ.add(objectKey(r));
    }
  });
  c.repos.onEvent((e) => {
    c.repoQ.add(objectKey(e.object));
    const ns = e.object.metadata?.namespace;
    for (const a of c.apps.list()) if (a.metadata?.namespace === ns) c.appQ.add(objectKey(a));
  });
  c.apps.onEvent((e) => {
    c.appQ.add(objectKey(e.object));
    const desired = (e.object as Application).status?.desiredRevision;
    if (desired) c.revQ.add(`${e.object.metadata!.namespace}/${desired}`);
  });
  c.revs.onEvent((e) => c.revQ.add(objectKey(e.object)));
}

/** Every object of every kind onto its queue (the leader's first pass). */
export function queueEverything(c: Caches) {
  for (const r of c.repos.list()) c.repoQ.add(objectKey(r));
  for (const a of c.apps.list()) c.appQ.add(objectKey(a));
  for (const r of c.revs.list()) c.revQ.add(objectKey(r));
  for (const p of c.policies.list()) c.policyQ.add(objectKey(p));
}
