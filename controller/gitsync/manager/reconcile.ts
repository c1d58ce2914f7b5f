/**
 * What the leader does: renews the manager's own webhook certificate (when it has one), waits for the
 * caches, queues every object, and runs the four reconcilers' workers until it stops leading or the
 * manager stops. Applications start once every Repository has had its first reconcile (at most 30 s).
 * With --leader-elect only the holder of the Lease reconciles; without it, this replica does.
 */
import { hostname } from "node:os";
import {
  type EventRecorder,
  type KubeClient,
  objectKey,
  type ReconcileResult,
  runLeaderElection,
  runWorkers,
  sleep,
  type WorkQueue,
} from "../../../internal/k8s/mod.ts";
import { SelfManagedCertificate } from "../approval/self_managed_certificate.ts";
import { discoverer } from "../discovery/discoverer.ts";
import { latestImages } from "../images/latest_images.ts";
import type { ManagerMetrics } from "../metrics.ts";
import { type Notifier, readSink } from "../notify/notifier.ts";
import { redact } from "../redact.ts";
import { applicationReconciler } from "../reconcilers/application.ts";
import { imagePolicyReconciler } from "../reconcilers/image_policy.ts";
import { repositoryReconciler } from "../reconcilers/repository.ts";
import { revisionReconciler } from "../reconcilers/revision.ts";
import { inSpan } from "../tracing.ts";
import type { ManagerOptions } from "./options.ts";
import { type Caches, queueEverything } from "./caches.ts";
import type { Sources } from "./sources.ts";

export interface LeaderDeps {
  events: EventRecorder;
  caches: Caches;
  sources: Sources;
  metrics: ManagerMetrics;
  notifier: Notifier;
}

/**
 * Reconciles while this replica leads (always, without leader election); resolves once stopped.
 * `leading` reports the state for the metrics.
 */
export function runWhileLeading(
  o: ManagerOptions,
  deps: LeaderDeps,
  leading: (value: boolean) => void,
  signal: AbortSignal,
): Promise<void> {
  if (!o.leaderElection) return reconcileAll(o, deps, signal);
  const { log } = o;
  const election = o.leaderElection;
  const identity = election.identity ?? `${hostname()}_${crypto.randomUUID().slice(0, 8)}`;
  let reconciling: Promise<void> = Promise.resolve();
  return runLeaderElection(o.client, {
    ...election,
    identity,
    onStartedLeading: (leaderSignal) => {
      leading(true);
      log.info("leading", { lease: `${election.namespace}/${election.name}`, identity });
      reconciling = reconcileAll(o, deps, leaderSignal);
    },
    onStoppedLeading: () => {
      leading(false);
      log.info("stopped leading", { identity });
    },
    onNewLeader: (holder) => {
      if (holder && holder !== identity) log.info("another replica leads", { leader: holder });
    },
  }, signal).then(() => reconciling);
}

/** The leader's work, until `signal` aborts; see the module comment. */
async function reconcileAll(o: ManagerOptions, deps: LeaderDeps, signal: AbortSignal): Promise<void> {
  const { caches: c, metrics } = deps;
  // The leader keeps the webhook's own certificate current (every replica serves it from the Secret).
  const certificate = o.webhook?.certificate;
  const renewing = certificate instanceof SelfManagedCertificate
    ? certificate.rotate(signal).catch((err) =>
      o.log.error("webhook certificate renewal stopped", { error: (err as Error).message })
    )
    : undefined;
  await c.synced;
  o.log.info("reconciling", { repositories: c.repos.list().length, applications: c.apps.list().length });
  queueEverything(c);
  const firstFetches = firstFetchGate(c);
  const concurrency = o.workers ?? 4;
  const run = (
    kind: string,
    queue: WorkQueue<string>,
    reconcile: (key: string) => Promise<ReconcileResult>,
  ) =>
    runWorkers(
      queue,
      concurrency,
      measured(metrics, kind, reconcile),
      (key, err) =>
        o.log.error("reconcile failed; retrying with backoff", { kind, key, error: (err as Error).message }),
    );
  const r = reconcilers(o, deps);
  const workers = [
    run("Repository", c.repoQ, firstFetches.counting(r.repository)),
    // Before its Repository's first fetch each Application would only report SourceNotReady (a status write
    // and an Event each, at 1,000 Applications 2,000 requests), and the fetch queues them again anyway.
    Promise.race([firstFetches.done, sleep(30_000, signal)]).then(() =>
      run("Application", c.appQ, r.application)
    ),
    run("Revision", c.revQ, r.revision),
    run("ImagePolicy", c.policyQ, r.imagePolicy),
  ];
  await new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  for (const q of [c.repoQ, c.appQ, c.revQ, c.policyQ]) q.shutDown();
  await Promise.all([...workers, renewing]);
}

/** Resolves once every Repository known now has had its first reconcile. */
function firstFetchGate(c: Caches) {
  const pending = new Set(c.repos.list().map((r) => objectKey(r)));
  let done!: () => void;
  const fetched = new Promise<void>((resolve) => (done = resolve));
  if (!pending.size) done();
  return {
    done: fetched,
    counting: (reconcile: (key: string) => Promise<ReconcileResult>) => async (key: string) => {
      try {
        return await reconcile(key);
      } finally {
        if (pending.delete(key) && !pending.size) done();
      }
    },
  };
}

/** A reconcile counted and timed in the metrics, inside a trace span. */
function measured(
  metrics: ManagerMetrics,
  controller: string,
  reconcile: (key: string) => Promise<ReconcileResult>,
) {
  return (key: string) =>
    inSpan(`reconcile ${controller}`, { "gitsync.kind": controller, "gitsync.object": key }, async () => {
      const started = performance.now();
      try {
        const r = await reconcile(key);
        metrics.observe(
          controller,
          r.requeueAfterMs !== undefined ? "requeue" : "success",
          performance.now() - started,
        );
        return r;
      } catch (err) {
        metrics.observe(controller, "error", performance.now() - started);
        throw err;
      }
    });
}

/** The four reconcilers over the caches and sources. */
function reconcilers(o: ManagerOptions, { events, caches: c, sources, notifier }: LeaderDeps) {
  const client: KubeClient = o.client;
  const defaultServiceAccount = o.defaultServiceAccount
    ? { defaultServiceAccount: o.defaultServiceAccount }
    : {};
  return {
    repository: repositoryReconciler({
      client,
      get: (k) => c.repos.get(k),
      cacheRoot: o.cacheRoot,
      latestImages: (ns) => latestImages(c.policies.list().filter((p) => p.metadata?.namespace === ns)),
      discover: discoverer({
        client,
        applications: (ns) => c.apps.list().filter((a) => a.metadata?.namespace === ns),
        tree: (repo, commit) => sources.source(repo.metadata!.namespace!, repo.metadata!.name!, commit),
        events,
        redact,
        ...defaultServiceAccount,
      }),
    }),
    application: applicationReconciler({
      client,
      getApplication: (k) => c.apps.get(k),
      getRepository: (k) => c.repos.get(k),
      checkSink: async (ns, sink) => void await readSink(client, ns, sink),
      listRevisions: (ns, app) => c.revs.byIndex(`${ns}/${app}`),
      getRevision: (k) => c.revs.get(k),
      ...defaultServiceAccount,
      events,
      approvalsOff: !o.webhook,
    }),
    revision: revisionReconciler({
      client,
      getRevision: (k) => c.revs.get(k),
      getApplication: (k) => c.apps.get(k),
      source: sources.source,
      renderers: sources.renderers,
      charts: sources.charts,
      kubeVersion: sources.kubeVersion,
      notify: (app, n) => notifier.notify(app.spec.notifications, n),
      events,
      redact,
      driftIntervalMs: o.driftIntervalMs ?? 5 * 60_000,
      driftSuspected: c.driftSuspected,
      approvalsOff: !o.webhook,
    }),
    imagePolicy: imagePolicyReconciler({ client, get: (k) => c.policies.get(k), events }),
  };
}
