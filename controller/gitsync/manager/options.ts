/** What `gitsync-manager run` configures (its flags, bind addresses parsed here), and the running manager. */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import type { CertificateSource } from "../approval/certificate_source.ts";

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
