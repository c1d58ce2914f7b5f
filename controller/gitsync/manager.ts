/**
 * The manager (`gitsync-manager run`; seed section 4): one informer per kind, one work queue per
 * reconciler, and the listeners. Reads as its life: start informers → wait until synced → (win the
 * Lease when leader election is on) → run the reconcilers → stop. The approval webhook and the
 * health probes serve on every replica; only the leader reconciles (and, with the manager's own webhook
 * certificate, renews it: every replica serves it from the Secret). Without the webhook
 * (ENABLE_WEBHOOKS=false) approvals are ignored: nothing records who approved, so an approval annotation
 * could be anyone's, and Applications that do not sync automatically never roll out.
 *
 * The steps, each a module of manager/: caches.ts (informers, queues and the wiring between kinds),
 * sources.ts (commits and renderers), reconcile.ts (leader election and the reconcilers' workers),
 * listeners.ts (probes, metrics, push receiver, webhook, on internal/http).
 */
import { EventRecorder } from "../../internal/k8s/mod.ts";
import { redact } from "./redact.ts";
import { SelfManagedCertificate } from "./approval/self_managed_certificate.ts";
import { ManagerMetrics } from "./metrics.ts";
import { Notifier } from "./notify/notifier.ts";
import { API_VERSION } from "./api/mod.ts";
import { type Caches, startCaches } from "./manager/caches.ts";
import { type Listeners, startListeners } from "./manager/listeners.ts";
import { runWhileLeading } from "./manager/reconcile.ts";
import { startSources } from "./manager/sources.ts";
import type { Manager, ManagerOptions } from "./manager/options.ts";

export { type Manager, type ManagerOptions, parseBindAddress } from "./manager/options.ts";

export async function startManager(o: ManagerOptions): Promise<Manager> {
  const stop = new AbortController();
  const events = new EventRecorder(o.client, { component: "gitsync-manager", redact });

  // Caches: the informers every reconciler reads from, and the queues their changes fill.
  const certificate = o.webhook?.certificate;
  const certificateRun = certificate instanceof SelfManagedCertificate ? [certificate.run(stop.signal)] : [];
  const caches = await startCaches(o, stop.signal);
  const running = [...caches.running, ...certificateRun];
  let isSynced = false;
  void caches.synced.then(() => (isSynced = true));

  // What the reconcilers render from, what they count, whom they notify.
  const sources = startSources(o, (key) => caches.repos.get(key), stop.signal);
  let leading = !o.leaderElection;
  const metrics = managerMetrics(caches, () => leading);
  const notifier = notifications(o, caches, events);

  // Reconcile while leading (always, without leader election).
  const reconciling = runWhileLeading(o, { events, caches, sources, metrics, notifier }, (value) => {
    leading = value;
  }, stop.signal);

  // Listeners: probes, metrics, receiver and the admission webhook serve on every replica.
  let listeners: Listeners;
  try {
    listeners = await startListeners(o, { caches, metrics, synced: () => isSynced });
  } catch (err) {
    stop.abort();
    sources.close();
    await Promise.allSettled([reconciling, ...running]);
    throw err;
  }

  return {
    ...(listeners.probes ? { healthProbePort: listeners.probes.port } : {}),
    ...(listeners.webhook ? { webhookPort: listeners.webhook.port } : {}),
    ...(listeners.metrics ? { metricsPort: listeners.metrics.port } : {}),
    ...(listeners.receiver ? { receiverPort: listeners.receiver.port } : {}),
    synced: caches.synced,
    async stop() {
      stop.abort();
      await Promise.allSettled([reconciling, ...running]);
      sources.close();
      await Promise.race([notifier.settled(), new Promise((r) => setTimeout(r, 5_000))]);
      await listeners.close();
    },
  };
}

/** Metrics: counted around each reconcile; gauges read from the caches at scrape time. */
function managerMetrics(c: Caches, leading: () => boolean): ManagerMetrics {
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  return new ManagerMetrics({
    revisionPhases: () => c.revs.list().reduce((m, r) => count(m, r.status?.phase ?? "Pending"), new Map()),
    applicationsReady: () =>
      c.apps.list().reduce(
        (m, a) => count(m, a.status?.conditions?.find((x) => x.type === "Ready")?.status ?? "Unknown"),
        new Map(),
      ),
    queueDepth: () =>
      new Map([
        ["Repository", c.repoQ.length],
        ["Application", c.appQ.length],
        ["Revision", c.revQ.length],
        ["ImagePolicy", c.policyQ.length],
      ]),
    leader: leading,
  });
}

/** Notifications: one in-memory queue, delivered off the reconcile path; a failure is an Event. */
function notifications(o: ManagerOptions, c: Caches, events: EventRecorder): Notifier {
  return new Notifier({
    client: o.client,
    onFailed: (n, sink, message) => {
      const app = c.apps.get(`${n.application.namespace}/${n.application.name}`);
      o.log.warn("notification failed", {
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
}
