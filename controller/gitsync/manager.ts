/**
 * The manager (`gitsync-manager run`; seed section 4): one informer per kind, one work queue per
 * reconciler, and the listeners. Reads as its life: start informers → wait until synced → (win the
 * Lease when leader election is on) → run the reconcilers → stop. The approval webhook and the
 * health probes serve on every replica; only the leader reconciles (and, with the manager's own webhook
 * certificate, renews it: every replica serves it from the Secret). Without the webhook
 * (ENABLE_WEBHOOKS=false) approvals are ignored: nothing records who approved, so an approval annotation
 * could be anyone's, and Applications that do not sync automatically never roll out.
 *
 * Wiring between kinds: a Repository's new commit queues the Applications of its namespace; an
 * Application's change (a new desired Revision, an approval recorded by the webhook) queues its
 * desired Revision; a Revision's own changes queue it again; an ImagePolicy's change queues it and the
 * Repositories of its namespace that write images back.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import {
  EventRecorder,
  Informer,
  isKubeApiError,
  type KubeClient,
  objectKey,
  type ReconcileResult,
  runLeaderElection,
  runWorkers,
  sleep,
  withoutFieldBookkeeping,
  WorkQueue,
} from "../../internal/k8s/mod.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { redact } from "./redact.ts";
import { startWebhookServer, type WebhookServer } from "./approval/webhook_server.ts";
import type { CertificateSource } from "./approval/certificate_source.ts";
import { SelfManagedCertificate } from "./approval/self_managed_certificate.ts";
import { ManagerMetrics } from "./metrics.ts";
import { type MetricsServer, startMetricsServer } from "./metrics_server.ts";
import { Notifier, readSink } from "./notify/notifier.ts";
import { type Receiver, startReceiver } from "./receiver/receiver.ts";
import { applicationReconciler } from "./reconcilers/application.ts";
import { readGitCredentials, repositoryReconciler } from "./reconcilers/repository.ts";
import { revisionReconciler } from "./reconcilers/revision.ts";
import { imagePolicyReconciler } from "./reconcilers/image_policy.ts";
import { latestImages } from "./images/latest_images.ts";
import { inSpan } from "./tracing.ts";
import { discoverer } from "./discovery/discoverer.ts";
import { watchManagedObjects } from "./drift_watch.ts";
import { schedulePrune } from "./source/cache_prune.ts";
import { CommitTrees } from "./source/git/commit_trees.ts";
import { Helm } from "./render/helm.ts";
import { ChartSource } from "./source/helm/chart_source.ts";
import { clusterVersion } from "./render/cluster_version.ts";
import { Kustomize } from "./render/kustomize.ts";
import {
  API_VERSION,
  type Application,
  type ImagePolicy,
  RECONCILE_REQUESTED_AT,
  type Repository,
  type Revision,
} from "./api/mod.ts";

export interface ManagerOptions {
  /** The manager's own client (its service account in a cluster). */
  client: KubeClient;
  log: Logger;
  /** Where bare Git caches live (one per Repository and credentials). */
  cacheRoot: string;
  /** --default-service-account: for Applications that set none; empty refuses them. */
  defaultServiceAccount?: string;
  /** --health-probe-bind-address as host and port; undefined disables the probes. */
  healthProbe?: { host: string; port: number };
  /**
   * The admission webhook's listener and certificate: files (cert-manager's, your own), a fixed pair
   * (--local-webhook) or a SelfManagedCertificate (the leader renews it). Undefined disables the webhook
   * (ENABLE_WEBHOOKS=false), and with it every approval.
   */
  webhook?: { host: string; port: number; certificate: CertificateSource };
  /** --enable-http2: HTTP/2 on the webhook's and the metrics' HTTPS listeners; default false. */
  http2?: boolean;
  /** --drift-resync-interval: how often deployed Revisions are compared with the cluster; 0 turns it off. */
  driftIntervalMs?: number;
  /** --drift-watch-kinds: kinds whose managed objects are watched for drift (checked at once on a change). */
  driftWatchKinds?: string[];
  /** --concurrent: reconciles in flight per kind; default 4. */
  workers?: number;
  /** --metrics-bind-address and its certificate (--metrics-secure: HTTPS with TokenReview and SubjectAccessReview). */
  metrics?: { host: string; port: number; secure?: { certFile: string; keyFile: string } };
  /** --webhook-receiver-bind-address: the push receiver (every replica answers). */
  receiver?: { host: string; port: number };
  /** --leader-elect: the Lease to hold before reconciling. */
  leaderElection?: { namespace: string; name: string; identity?: string };
}

export interface Manager {
  /** Bound ports (useful with port 0). */
  healthProbePort?: number;
  webhookPort?: number;
  metricsPort?: number;
  receiverPort?: number;
  /** Resolves once the caches are synced (readyz turns ok). */
  synced: Promise<void>;
  stop(): Promise<void>;
}

/** `:8081`, `127.0.0.1:8081` or `[::1]:8081` into host and port (an empty host listens everywhere). */
export function parseBindAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new Error(`"${text}" is not a bind address: use host:port or :port, e.g. :8081 or 127.0.0.1:8081`);
  }
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port };
}

export async function startManager(o: ManagerOptions): Promise<Manager> {
  const stop = new AbortController();
  const log = o.log;
  const events = new EventRecorder(o.client, { component: "gitsync-manager", redact });

  // Informers: the cache every reconciler reads from (without managedFields: nothing here reads them).
  const onError = (kind: string) => (err: unknown) =>
    log.warn("watch failed; retrying", { kind, error: (err as Error).message });
  const repos = new Informer<Repository>(o.client, {
    path: `/apis/${API_VERSION}/repositories`,
    onError: onError("Repository"),
    transform: withoutFieldBookkeeping,
  });
  const apps = new Informer<Application>(o.client, {
    path: `/apis/${API_VERSION}/applications`,
    onError: onError("Application"),
    transform: withoutFieldBookkeeping,
  });
  const revs = new Informer<Revision>(o.client, {
    path: `/apis/${API_VERSION}/revisions`,
    onError: onError("Revision"),
    transform: withoutFieldBookkeeping,
    indexBy: (r) => `${r.metadata?.namespace}/${r.spec.applicationRef.name}`,
  });
  const repoQ = new WorkQueue<string>();
  const appQ = new WorkQueue<string>();
  const revQ = new WorkQueue<string>();
  const policies = new Informer<ImagePolicy>(o.client, {
    path: `/apis/${API_VERSION}/imagepolicies`,
    onError: onError("ImagePolicy"),
    transform: withoutFieldBookkeeping,
  });
  const policyQ = new WorkQueue<string>();
  policies.onEvent((e) => {
    policyQ.add(objectKey(e.object));
    const ns = e.object.metadata?.namespace;
    for (const r of repos.list()) {
      if (r.metadata?.namespace === ns && r.spec.imageUpdate) repoQ.add(objectKey(r));
    }
  });
  repos.onEvent((e) => {
    repoQ.add(objectKey(e.object));
    const ns = e.object.metadata?.namespace;
    for (const a of apps.list()) if (a.metadata?.namespace === ns) appQ.add(objectKey(a));
  });
  apps.onEvent((e) => {
    appQ.add(objectKey(e.object));
    const desired = (e.object as Application).status?.desiredRevision;
    if (desired) revQ.add(`${e.object.metadata!.namespace}/${desired}`);
  });
  revs.onEvent((e) => revQ.add(objectKey(e.object)));
  const driftSuspected = new Set<string>();
  const informers = [repos, apps, revs, policies].map((i) => i.run(stop.signal));
  if (o.webhook?.certificate instanceof SelfManagedCertificate) {
    informers.push(o.webhook.certificate.run(stop.signal));
  }
  // Drift on watched kinds: a changed managed object asks for its Application's drift check now.
  if (o.driftWatchKinds?.length && (o.driftIntervalMs ?? 1) > 0) {
    informers.push(
      ...await watchManagedObjects({
        client: o.client,
        kinds: o.driftWatchKinds,
        signal: stop.signal,
        log,
        changed: (ns, name) => {
          const deployed = apps.get(`${ns}/${name}`)?.status?.deployedRevision;
          if (!deployed) return;
          driftSuspected.add(`${ns}/${deployed}`);
          revQ.add(`${ns}/${deployed}`);
        },
      }),
    );
  }
  const synced = Promise.all([repos.synced, apps.synced, revs.synced, policies.synced]).then(() => {});

  // The files of a commit, from the Repository's bare cache (fetched again only when it lacks it).
  const trees = new CommitTrees();
  schedulePrune(o.cacheRoot, stop.signal, (removed, err) => {
    if (err) log.warn("source cache prune failed", { error: err.message });
    else if (removed.length) log.info("source cache pruned", { clones: removed.length });
  });
  const renderers = {
    kustomize: new Kustomize({ warn: (message, path) => log.warn("kustomize", { path, message }) }),
    helm: new Helm(),
  };
  const charts = new ChartSource();
  const kubeVersion = clusterVersion(o.client);
  const source = async (ns: string, name: string, commit: string) => {
    const r = repos.get(`${ns}/${name}`);
    if (!r) throw new Error(`Repository ${ns}/${name} does not exist`);
    const fetch = {
      url: r.spec.git.url,
      credentials: await readGitCredentials(o.client, r),
      cacheRoot: o.cacheRoot,
    };
    return await trees.get(fetch, commit, r.spec.git.revision ?? "main");
  };

  // Metrics: counted around each reconcile; gauges read from the caches at scrape time.
  let leading = !o.leaderElection;
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const metrics = new ManagerMetrics({
    revisionPhases: () => revs.list().reduce((m, r) => count(m, r.status?.phase ?? "Pending"), new Map()),
    applicationsReady: () =>
      apps.list().reduce(
        (m, a) => count(m, a.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown"),
        new Map(),
      ),
    queueDepth: () =>
      new Map([
        ["Repository", repoQ.length],
        ["Application", appQ.length],
        ["Revision", revQ.length],
        ["ImagePolicy", policyQ.length],
      ]),
    leader: () => leading,
  });
  const measured =
    (controller: string, reconcile: (key: string) => Promise<ReconcileResult>) => (key: string) =>
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

  // Notifications: one in-memory queue, delivered off the reconcile path.
  const notifier = new Notifier({
    client: o.client,
    onFailed: (n, sink, message) => {
      const app = apps.get(`${n.application.namespace}/${n.application.name}`);
      log.warn("notification failed", {
        application: `${n.application.namespace}/${n.application.name}`,
        sink,
        event: n.event,
      });
      if (app) {
        void events.warning(
          { ...app, apiVersion: API_VERSION, kind: "Application" },
          "NotificationFailed",
          message,
        );
      }
    },
  });

  const concurrency = o.workers ?? 4;
  const failed = (kind: string) => (key: string, err: unknown) =>
    log.error("reconcile failed; retrying with backoff", { kind, key, error: (err as Error).message });
  const certificate = o.webhook?.certificate;
  const reconcile = async (signal: AbortSignal) => {
    // The leader keeps the webhook's own certificate current (every replica serves it from the Secret).
    const renewing = certificate instanceof SelfManagedCertificate
      ? certificate.rotate(signal).catch((err) =>
        log.error("webhook certificate renewal stopped", { error: (err as Error).message })
      )
      : undefined;
    await synced;
    log.info("reconciling", { repositories: repos.list().length, applications: apps.list().length });
    for (const r of repos.list()) repoQ.add(objectKey(r));
    for (const a of apps.list()) appQ.add(objectKey(a));
    for (const r of revs.list()) revQ.add(objectKey(r));
    for (const p of policies.list()) policyQ.add(objectKey(p));
    // Applications start once every Repository has had its first reconcile (at most 30 s): before its
    // first fetch each of them would only report SourceNotReady (a status write and an Event each, at
    // 1,000 Applications 2,000 requests), and the fetch queues them again anyway.
    const firstFetch = new Set(repos.list().map((r) => objectKey(r)));
    let firstFetchDone!: () => void;
    const firstFetches = new Promise<void>((resolve) => (firstFetchDone = resolve));
    if (!firstFetch.size) firstFetchDone();
    const repositoryReconcile = measured(
      "Repository",
      repositoryReconciler({
        client: o.client,
        get: (k) => repos.get(k),
        cacheRoot: o.cacheRoot,
        latestImages: (ns) => latestImages(policies.list().filter((p) => p.metadata?.namespace === ns)),
        discover: discoverer({
          client: o.client,
          applications: (ns) => apps.list().filter((a) => a.metadata?.namespace === ns),
          tree: (repo, commit) => source(repo.metadata!.namespace!, repo.metadata!.name!, commit),
          events,
          redact,
          ...(o.defaultServiceAccount ? { defaultServiceAccount: o.defaultServiceAccount } : {}),
        }),
      }),
    );
    const afterFirstFetches = async <R>(run: () => Promise<R>) => {
      await Promise.race([firstFetches, sleep(30_000, signal)]);
      return await run();
    };
    const workers = [
      runWorkers(
        repoQ,
        concurrency,
        async (key) => {
          try {
            return await repositoryReconcile(key);
          } finally {
            if (firstFetch.delete(key) && !firstFetch.size) firstFetchDone();
          }
        },
        failed("Repository"),
      ),
      afterFirstFetches(() =>
        runWorkers(
          appQ,
          concurrency,
          measured(
            "Application",
            applicationReconciler({
              client: o.client,
              getApplication: (k) => apps.get(k),
              getRepository: (k) => repos.get(k),
              checkSink: async (ns, sink) => void await readSink(o.client, ns, sink),
              listRevisions: (ns, app) => revs.byIndex(`${ns}/${app}`),
              getRevision: (k) => revs.get(k),
              ...(o.defaultServiceAccount ? { defaultServiceAccount: o.defaultServiceAccount } : {}),
              events,
              approvalsOff: !o.webhook,
            }),
          ),
          failed("Application"),
        )
      ),
      runWorkers(
        revQ,
        concurrency,
        measured(
          "Revision",
          revisionReconciler({
            client: o.client,
            getRevision: (k) => revs.get(k),
            getApplication: (k) => apps.get(k),
            source,
            renderers,
            charts,
            kubeVersion,
            notify: (app, n) => notifier.notify(app.spec.notifications, n),
            events,
            redact,
            driftIntervalMs: o.driftIntervalMs ?? 5 * 60_000,
            driftSuspected,
            approvalsOff: !o.webhook,
          }),
        ),
        failed("Revision"),
      ),
      runWorkers(
        policyQ,
        concurrency,
        measured(
          "ImagePolicy",
          imagePolicyReconciler({ client: o.client, get: (k) => policies.get(k), events }),
        ),
        failed("ImagePolicy"),
      ),
    ];
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    for (const q of [repoQ, appQ, revQ, policyQ]) q.shutDown();
    await Promise.all([...workers, renewing]);
  };

  let running: Promise<void>;
  if (o.leaderElection) {
    const identity = o.leaderElection.identity ?? `${hostname()}_${crypto.randomUUID().slice(0, 8)}`;
    let reconciling: Promise<void> = Promise.resolve();
    running = runLeaderElection(o.client, {
      ...o.leaderElection,
      identity,
      onStartedLeading: (signal) => {
        leading = true;
        log.info("leading", { lease: `${o.leaderElection!.namespace}/${o.leaderElection!.name}`, identity });
        reconciling = reconcile(signal);
      },
      onStoppedLeading: () => {
        leading = false;
        log.info("stopped leading", { identity });
      },
      onNewLeader: (holder) => {
        if (holder && holder !== identity) log.info("another replica leads", { leader: holder });
      },
    }, stop.signal).then(() => reconciling);
  } else {
    running = reconcile(stop.signal);
  }

  // Listeners: probes and the admission webhook serve on every replica, leader or not.
  let probes: Server | undefined;
  let webhook: WebhookServer | undefined;
  let metricsServer: MetricsServer | undefined;
  let receiver: Receiver | undefined;
  let isSynced = false;
  void synced.then(() => (isSynced = true));
  try {
    if (o.healthProbe) {
      probes = createServer((req, res) => {
        const path = req.url?.split("?")[0];
        // Ready: caches synced and, with the webhook on, a certificate served (the Service then sends
        // the API server only to replicas that can answer).
        const ready = isSynced && (!o.webhook || webhook?.serving() === true);
        const ok = path === "/healthz" || (path === "/readyz" && ready);
        const known = path === "/healthz" || path === "/readyz";
        res.writeHead(known ? (ok ? 200 : 503) : 404, { "content-type": "text/plain" });
        res.end(
          known ? (ok ? "ok" : isSynced ? "webhook not serving yet" : "informers not synced") : "not found",
        );
      });
      await listen(probes, o.healthProbe);
    }
    if (o.metrics) {
      metricsServer = await startMetricsServer({
        host: o.metrics.host,
        port: o.metrics.port,
        ...(o.metrics.secure ? { secure: { ...o.metrics.secure, client: o.client } } : {}),
        http2: o.http2 ?? false,
        render: () => metrics.render(),
      });
    }
    if (o.receiver) {
      // Uncached, by reference from the object in the same namespace (seed section 5.3).
      const webhookToken = async (ns: string, secret: string | undefined) => {
        if (!secret) return undefined;
        try {
          const s = await o.client.request<{ data?: Record<string, string> }>({
            path: `/api/v1/namespaces/${ns}/secrets/${secret}`,
          });
          return s.data?.token ? Buffer.from(s.data.token, "base64").toString("utf8") : undefined;
        } catch (err) {
          if (isKubeApiError(err, 404)) return undefined;
          throw err;
        }
      };
      const stampRequest = (plural: string) => async (ns: string, name: string) => {
        await o.client.request({
          method: "PATCH",
          path: `/apis/${API_VERSION}/namespaces/${ns}/${plural}/${name}`,
          contentType: "application/merge-patch+json",
          body: { metadata: { annotations: { [RECONCILE_REQUESTED_AT]: new Date().toISOString() } } },
        });
      };
      receiver = await startReceiver({
        ...o.receiver,
        lookup: async (ns, name) => {
          const r = repos.get(`${ns}/${name}`);
          const token = r && await webhookToken(ns, r.spec.webhook?.secretRef?.name);
          return token ? { url: r.spec.git.url, token } : undefined;
        },
        requestReconcile: stampRequest("repositories"),
        lookupImagePolicy: async (ns, name) => {
          const p = policies.get(`${ns}/${name}`);
          const token = p && await webhookToken(ns, p.spec.webhook?.secretRef?.name);
          return token ? { token } : undefined;
        },
        requestScan: stampRequest("imagepolicies"),
        onResult: (result, repository) => {
          metrics.receiverResult(result);
          if (result === "accepted") log.info("push received", { repository });
        },
      });
    }
    if (o.webhook) {
      webhook = await startWebhookServer({
        host: o.webhook.host,
        port: o.webhook.port,
        certificate: o.webhook.certificate,
        http2: o.http2 ?? false,
        onCertificateError: (err) => log.error("webhook certificate not usable", { error: err.message }),
        revision: (ns, name) => Promise.resolve(revs.get(`${ns}/${name}`)),
        onDecision: (d) => {
          if (!d.allowed) log.info("approval refused", { user: d.user, reason: d.message });
        },
      });
    }
  } catch (err) {
    stop.abort();
    renderers.kustomize.close();
    renderers.helm.close();
    probes?.close();
    await metricsServer?.close();
    await receiver?.close();
    await Promise.allSettled([running, ...informers]);
    throw err;
  }

  return {
    ...(probes ? { healthProbePort: (probes.address() as AddressInfo).port } : {}),
    ...(webhook ? { webhookPort: webhook.port } : {}),
    ...(metricsServer ? { metricsPort: metricsServer.port } : {}),
    ...(receiver ? { receiverPort: receiver.port } : {}),
    synced,
    async stop() {
      stop.abort();
      await Promise.allSettled([running, ...informers]);
      renderers.kustomize.close();
      renderers.helm.close();
      await Promise.race([notifier.settled(), new Promise((r) => setTimeout(r, 5_000))]);
      await webhook?.close();
      await metricsServer?.close();
      await receiver?.close();
      if (probes) {
        await new Promise<void>((resolve) => probes!.close(() => resolve()));
        probes.closeAllConnections?.();
      }
    },
  };
}

function listen(server: Server, at: { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(at.port, at.host, () => resolve());
  });
}
