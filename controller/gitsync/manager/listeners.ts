/**
 * The manager's HTTP servers, all on internal/http: the health probes, the metrics endpoint, the push
 * receiver and the approval webhook. They serve on every replica, leader or not. The webhook and the
 * secure metrics endpoint serve TLS whose certificate is swapped while serving (tls_listener.ts).
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { type RunningServer, serve } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { RECONCILE_REQUESTED_AT } from "../api/mod.ts";
import { startWebhookServer, type WebhookServer } from "../approval/webhook_server.ts";
import { annotate, type Plural, readSecret, secretText } from "../client/mod.ts";
import type { ManagerMetrics } from "../metrics.ts";
import { type MetricsServer, startMetricsServer } from "../metrics_server.ts";
import { type Receiver, startReceiver } from "../receiver/receiver.ts";
import type { ManagerOptions } from "./options.ts";
import type { Caches } from "./caches.ts";
import { probesApp } from "./probes.ts";

export interface Listeners {
  probes?: RunningServer;
  metrics?: MetricsServer;
  receiver?: Receiver;
  webhook?: WebhookServer;
  /** Stops every listener started. */
  close(): Promise<void>;
}

/** Starts the listeners the options ask for; on a failure, closes those already started and throws. */
export async function startListeners(
  o: ManagerOptions,
  deps: { caches: Caches; metrics: ManagerMetrics; synced: () => boolean },
): Promise<Listeners> {
  const l: Listeners = {
    async close() {
      await l.webhook?.close();
      await l.metrics?.close();
      await l.receiver?.close();
      await l.probes?.stop();
    },
  };
  try {
    if (o.healthProbe) l.probes = startProbes(o, () => deps.synced(), () => l.webhook?.serving() === true);
    if (o.metrics) {
      l.metrics = await startMetricsServer({
        host: o.metrics.host,
        port: o.metrics.port,
        ...(o.metrics.secure ? { secure: { ...o.metrics.secure, client: o.client } } : {}),
        http2: o.http2 ?? false,
        render: () => deps.metrics.render(),
      });
    }
    if (o.receiver) l.receiver = await startPushReceiver(o, o.receiver, deps);
    if (o.webhook) {
      l.webhook = await startWebhookServer({
        host: o.webhook.host,
        port: o.webhook.port,
        certificate: o.webhook.certificate,
        http2: o.http2 ?? false,
        onCertificateError: (err) => o.log.error("webhook certificate not usable", { error: err.message }),
        revision: (ns, name) => Promise.resolve(deps.caches.revs.get(`${ns}/${name}`)),
        onDecision: (d) => {
          if (!d.allowed) o.log.info("approval refused", { user: d.user, reason: d.message });
        },
      });
    }
  } catch (err) {
    await l.close();
    throw err;
  }
  return l;
}

function startProbes(o: ManagerOptions, synced: () => boolean, webhookServing: () => boolean): RunningServer {
  const app = probesApp(() => {
    if (!synced()) return "informers not synced";
    if (o.webhook && !webhookServing()) return "webhook not serving yet";
    return undefined;
  });
  // The manager logs one line with every port: serve() stays silent.
  const at = o.healthProbe!;
  return serve(app, { hostname: at.host, port: at.port, log: silentLogger, handleSignals: false });
}

/** The push receiver, looking Repositories and ImagePolicies up in the caches and their tokens uncached. */
function startPushReceiver(
  o: ManagerOptions,
  at: { host: string; port: number },
  deps: { caches: Caches; metrics: ManagerMetrics },
): Promise<Receiver> {
  const { caches: c, metrics } = deps;
  const token = webhookToken(o.client);
  const stampRequest = (plural: Plural) => async (ns: string, name: string) => {
    await annotate(o.client, plural, ns, name, { [RECONCILE_REQUESTED_AT]: new Date().toISOString() });
  };
  return startReceiver({
    ...at,
    lookup: async (ns, name) => {
      const r = c.repos.get(`${ns}/${name}`);
      const t = r && await token(ns, r.spec.webhook?.secretRef?.name);
      return t ? { url: r.spec.git.url, token: t } : undefined;
    },
    requestReconcile: stampRequest("repositories"),
    lookupImagePolicy: async (ns, name) => {
      const p = c.policies.get(`${ns}/${name}`);
      const t = p && await token(ns, p.spec.webhook?.secretRef?.name);
      return t ? { token: t } : undefined;
    },
    requestScan: stampRequest("imagepolicies"),
    onResult: (result, repository) => {
      metrics.receiverResult(result);
      if (result === "accepted") o.log.info("push received", { repository });
    },
  });
}

/** The `token` of a webhook Secret, read uncached by reference in the object's namespace (seed section 5.3). */
function webhookToken(client: KubeClient) {
  return async (ns: string, secret: string | undefined) => {
    if (!secret) return undefined;
    const s = await readSecret(client, ns, secret);
    return s && secretText(s, "token");
  };
}
