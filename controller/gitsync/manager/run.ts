/**
 * `gitsync-manager run` once its flags are valid (cmd/gitsync-manager/run.ts checks them before any
 * I/O): the log as zap writes it, the client, the webhook's certificate by its source, tracing, the
 * manager, the local webhook's registration, and the stop on SIGTERM or SIGINT. Loaded only by `run`.
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import { KubeClient } from "../../../internal/k8s/mod.ts";
import { createLogger, type Logger, type LogLevel, type TimeEncoding } from "../../../internal/log/mod.ts";
import { exitOnStopSignals, purgeFreedMemoryPromptly } from "../../../internal/platform/mod.ts";
import { VERSION as TOOL_VERSION } from "../../../internal/version/version.ts";
import type { LocalWebhook } from "../approval/local_webhook.ts";
import {
  LOCAL_WEBHOOK_CONFIGURATION,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_SERVICE,
} from "../approval/webhook_names.ts";
import { type Manager, startManager } from "../manager.ts";
import { startTracing } from "../tracing.ts";

type BindAddress = { host: string; port: number };

/** The flags the run reads as given (seed section 4, manager flags). */
export interface RunFlags {
  kubeconfig?: string;
  context?: string;
  defaultServiceAccount: string;
  leaderElect: boolean;
  leaderElectionNamespace?: string;
  concurrent: string;
  webhookCertSecret?: string;
  enableHttp2: boolean;
  cacheDir: string;
  zapLogLevel: LogLevel;
  zapDevel: boolean;
  zapEncoder: "json" | "console";
  zapTimeEncoding: TimeEncoding;
}

/** What the flags ask for, checked before anything connects anywhere. */
export interface RunOptions {
  driftIntervalMs: number;
  driftWatchKinds: string[];
  healthProbe?: BindAddress;
  metrics?: BindAddress & { secure?: { certFile: string; keyFile: string } };
  receiver?: BindAddress;
  webhookAt: BindAddress;
  /** ENABLE_WEBHOOKS is not false. */
  webhooksOn: boolean;
  /** Where the webhook's certificate comes from, when the webhook is on. */
  webhookCertificate?: "files" | "secret" | "local";
  certFiles?: { certFile: string; keyFile: string };
  validityMs: number;
  caValidityMs: number;
  /** Its webhook Secret, and its Lease unless --leader-election-namespace. */
  managerNamespace: string;
}

/** The webhook's listener and certificate by source; with --local-webhook, the CA to register. */
async function webhookOf(o: RunOptions, flags: RunFlags, client: KubeClient, log: Logger) {
  const at = o.webhookAt;
  if (o.webhookCertificate === "files") {
    const { certificateFiles } = await import("../approval/certificate_source.ts");
    return { webhook: { ...at, certificate: certificateFiles(o.certFiles!.certFile, o.certFiles!.keyFile) } };
  }
  if (o.webhookCertificate === "secret") {
    const { SelfManagedCertificate } = await import(
      "../approval/self_managed_certificate.ts"
    );
    const certificate = new SelfManagedCertificate({
      client,
      namespace: o.managerNamespace,
      secretName: flags.webhookCertSecret!,
      serviceName: WEBHOOK_SERVICE,
      configurations: [{ kind: "MutatingWebhookConfiguration", name: WEBHOOK_CONFIGURATION }],
      validityMs: o.validityMs,
      caValidityMs: o.caValidityMs,
      log,
    });
    return { webhook: { ...at, certificate } };
  }
  if (o.webhookCertificate === "local") {
    const [{ issueCa, issueServing }, { fixedCertificate }] = await Promise.all([
      import("../approval/x509.ts"),
      import("../approval/certificate_source.ts"),
    ]);
    const ca = await issueCa({
      commonName: "gitsync-local-webhook-ca",
      notAfter: new Date(Date.now() + o.caValidityMs),
    });
    const leaf = await issueServing(ca, {
      ipAddresses: ["127.0.0.1"],
      dnsNames: ["localhost"],
      notAfter: new Date(Date.now() + o.validityMs),
    });
    return {
      webhook: { host: "127.0.0.1", port: at.port, certificate: fixedCertificate(leaf) },
      localCa: ca.cert,
    };
  }
  return {};
}

/** --local-webhook: the API server calls https://127.0.0.1:<port> while this process runs. */
async function registerLocal(client: KubeClient, log: Logger, manager: Manager, caBundle: string) {
  const { registerLocalWebhook } = await import("../approval/local_webhook.ts");
  let local: LocalWebhook;
  try {
    local = await registerLocalWebhook(client, { port: manager.webhookPort!, caBundle });
  } catch (err) {
    await manager.stop();
    client.close();
    throw new CliError(
      `--local-webhook could not register MutatingWebhookConfiguration ${LOCAL_WEBHOOK_CONFIGURATION}: ` +
        `${(err as Error).message}`,
    );
  }
  log.info("local webhook registered", {
    configuration: LOCAL_WEBHOOK_CONFIGURATION,
    url: `https://127.0.0.1:${manager.webhookPort}`,
  });
  return local;
}

/** Connects, starts the manager and serves until a stop signal. */
export async function runManager(flags: RunFlags, o: RunOptions): Promise<never> {
  purgeFreedMemoryPromptly();

  // zap's JSON (level, ts, logger, msg) as controller-runtime managers write it, so log pipelines built
  // for Kubernetes controllers read gitsync-manager as they read the others.
  const log = createLogger({
    level: flags.zapDevel ? "debug" : flags.zapLogLevel,
    format: flags.zapDevel ? "pretty" : flags.zapEncoder === "console" ? "zap-console" : "zap-json",
    timeEncoding: flags.zapTimeEncoding,
    bindings: { service: "gitsync-manager" },
  });
  const client = KubeClient.fromKubeconfig({
    ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}),
    ...(flags.context ? { context: flags.context } : {}),
    userAgent: `gitsync-manager/${TOOL_VERSION}`,
  });
  if (!o.webhooksOn) {
    log.warn(
      "ENABLE_WEBHOOKS=false: the approval webhook is OFF, so approvals are ignored: nothing records who " +
        "approved, and an approval annotation could be anyone's. Applications without spec.sync.automatic " +
        "wait in AwaitingApproval and never roll out (nor roll back)",
    );
  }
  const { webhook, localCa } = await webhookOf(o, flags, client, log);
  const tracing = startTracing(process.env, log);
  if (tracing) log.info("tracing", { endpoint: tracing.endpoint });
  const manager = await startManager({
    client,
    log,
    cacheRoot: flags.cacheDir,
    workers: Number(flags.concurrent),
    driftIntervalMs: o.driftIntervalMs,
    driftWatchKinds: o.driftWatchKinds,
    ...(flags.defaultServiceAccount ? { defaultServiceAccount: flags.defaultServiceAccount } : {}),
    ...(o.healthProbe ? { healthProbe: o.healthProbe } : {}),
    ...(webhook ? { webhook } : {}),
    http2: flags.enableHttp2,
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.receiver ? { receiver: o.receiver } : {}),
    ...(flags.leaderElect
      ? {
        leaderElection: {
          namespace: flags.leaderElectionNamespace ?? o.managerNamespace,
          name: "gitsync-manager.sync.gitsync.io",
        },
      }
      : {}),
  });
  const local = localCa ? await registerLocal(client, log, manager, localCa) : undefined;
  log.info("listening", {
    version: TOOL_VERSION,
    ...(manager.healthProbePort !== undefined ? { port: manager.healthProbePort } : {}),
    ...(manager.webhookPort !== undefined ? { webhookPort: manager.webhookPort } : {}),
    ...(manager.metricsPort !== undefined ? { metricsPort: manager.metricsPort } : {}),
    ...(manager.receiverPort !== undefined ? { receiverPort: manager.receiverPort } : {}),
    leaderElect: flags.leaderElect,
    http2: flags.enableHttp2,
  });
  exitOnStopSignals(log, async () => {
    // The local configuration goes first: a webhook that no longer answers would block every
    // Application write (failurePolicy Fail).
    await local?.remove().catch((err) =>
      log.warn("could not remove the local webhook configuration", { error: (err as Error).message })
    );
    await manager.stop();
    await tracing?.shutdown();
    client.close();
    log.info("stopped");
  });
  return await new Promise(() => {}); // Runs until a stop signal.
}
