/** `gitsync-manager run`: the controller, until SIGTERM or SIGINT (seed section 4, manager flags). */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { Option } from "@commander-js/extra-typings";
import { addExamples, CliError } from "../../internal/cli/mod.ts";
import { LOG_LEVELS, type LogLevel, TIME_ENCODINGS, type TimeEncoding } from "../../internal/log/mod.ts";
import { DEFAULT_DRIFT_WATCH_KINDS, parseWatchKind } from "../../controller/gitsync/drift_watch.ts";
import {
  LOCAL_WEBHOOK_CONFIGURATION,
  WEBHOOK_CONFIGURATION,
} from "../../controller/gitsync/approval/webhook_names.ts";
import { parseDuration } from "../../controller/gitsync/api/mod.ts";
import { parseBindAddress } from "../../controller/gitsync/manager/options.ts";
import type { RunOptions } from "../../controller/gitsync/manager/run.ts";

/** Where controller-runtime managers look for serving certificates, so charts made for them fit. */
const DEFAULT_CERT_DIR = join(tmpdir(), "k8s-webhook-server", "serving-certs");
const IN_CLUSTER_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** The command and its flags. */
function runCommand(program: Command) {
  return program
    .command("run")
    .summary("Run the controller: reconcile Repositories, Applications and Revisions")
    .description(
      "Watch Repositories, Applications and Revisions and reconcile them: fetch commits, create one Revision " +
        "per commit and service account, plan it, wait for an approval of exactly that plan (unless the " +
        "Application syncs automatically), then roll it out in hooks and waves as the Application's service " +
        "account. Serves /healthz and /readyz and the approval admission webhook on every replica; with " +
        "--leader-elect only the replica holding the Lease reconciles. Logs are JSON lines on stderr, " +
        "secrets redacted. Stops on SIGTERM or SIGINT.\n\n" +
        "The webhook's certificate: --webhook-cert-secret (the manager issues and renews its own, for " +
        "clusters without cert-manager), --webhook-cert-path (cert-manager's or your own files), or " +
        "--local-webhook (outside a cluster: 127.0.0.1, registered with the API server while it runs).\n\n" +
        "Environment: ENABLE_WEBHOOKS=false turns the admission webhook off, and with it every approval: " +
        "approval annotations are then ignored, so only Applications with spec.sync.automatic deploy; " +
        "POD_NAMESPACE names the manager's namespace (Lease, webhook Secret) when not in a cluster; " +
        "OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT turns OTLP gRPC trace export on " +
        "(with OTEL_SERVICE_NAME, default gitsync, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS, " +
        "OTEL_EXPORTER_OTLP_INSECURE; OTEL_SDK_DISABLED=true keeps it off).",
    )
    .option(
      "--kubeconfig <path>",
      "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)",
    )
    .option("--context <name>", "Kubeconfig context to use (default: current-context)")
    .option(
      "--default-service-account <name>",
      "Service account for Applications that set none; empty refuses them (ServiceAccountRequired)",
      "",
    )
    .option(
      "--leader-elect",
      "Reconcile only while holding the Lease (run several replicas for failover)",
      false,
    )
    .option(
      "--leader-election-namespace <name>",
      "Namespace of the Lease (default: the pod's namespace, $POD_NAMESPACE, then gitsync-system)",
    )
    .option(
      "--drift-resync-interval <duration>",
      "How often deployed Revisions are compared with the cluster (drift, self-heal); 0 turns it off",
      "5m",
    )
    .option(
      "--drift-watch-kinds <kinds>",
      "Kinds whose managed objects are watched (metadata only), so a change is checked for drift at once " +
        "(needs list/watch on them); others wait for the resync interval. Comma-separated; empty: none",
      DEFAULT_DRIFT_WATCH_KINDS.join(","),
    )
    .option("--concurrent <n>", "Reconciles in flight per kind (Repositories, Applications, Revisions)", "4")
    .option("--health-probe-bind-address <address>", "/healthz and /readyz; 0 disables", ":8081")
    .option(
      "--metrics-bind-address <address>",
      "Prometheus metrics at /metrics, e.g. :8443; 0 disables",
      "0",
    )
    .addOption(
      new Option(
        "--metrics-secure <bool>",
        "HTTPS with authentication (TokenReview) and authorization (get on /metrics); false serves plain HTTP to anyone",
      ).choices(["true", "false"]).default("true"),
    )
    .option(
      "--metrics-cert-path <dir>",
      "Directory of the metrics endpoint's certificate (needed when secure)",
    )
    .option("--metrics-cert-name <file>", "Certificate file name in --metrics-cert-path", "tls.crt")
    .option("--metrics-cert-key <file>", "Key file name in --metrics-cert-path", "tls.key")
    .option(
      "--webhook-receiver-bind-address <address>",
      "The Git push receiver (POST /hooks/<namespace>/<repository>), e.g. :9292; empty disables",
      "",
    )
    .option("--webhook-bind-address <address>", "The approval admission webhook (HTTPS)", ":9443")
    .option(
      "--webhook-cert-path <dir>",
      `Directory of the webhook's certificate (default: ${DEFAULT_CERT_DIR})`,
    )
    .option("--webhook-cert-name <file>", "Certificate file name in --webhook-cert-path", "tls.crt")
    .option("--webhook-cert-key <file>", "Key file name in --webhook-cert-path", "tls.key")
    .option(
      "--webhook-cert-secret <name>",
      `Without cert-manager: issue the webhook's CA and certificate into this Secret of the manager's ` +
        `namespace, renew them before they expire and write the CA into the caBundle of ` +
        `MutatingWebhookConfiguration ${WEBHOOK_CONFIGURATION} (the leader writes, every replica serves it)`,
    )
    .option(
      "--webhook-cert-validity <duration>",
      "Lifetime of a certificate the manager issues (renewed when a third is left)",
      "8760h",
    )
    .option("--webhook-ca-validity <duration>", "Lifetime of the CA the manager issues", "87600h")
    .option(
      "--local-webhook",
      `Outside a cluster: serve the webhook on 127.0.0.1 (port of --webhook-bind-address) with a ` +
        `certificate made up at start, registered as MutatingWebhookConfiguration ` +
        `${LOCAL_WEBHOOK_CONFIGURATION} (clientConfig.url) and removed on exit`,
      false,
    )
    .option(
      "--enable-http2",
      "Offer HTTP/2 on the webhook and metrics HTTPS servers (default: HTTP/1.1 only)",
      false,
    )
    .option(
      "--cache-dir <dir>",
      "Where fetched Git repositories are cached",
      join(tmpdir(), "gitsync-source-cache"),
    )
    .addOption(
      new Option("--zap-log-level <level>", "Lowest level logged").choices(LOG_LEVELS).default(
        "info" as LogLevel,
      ),
    )
    .option("--zap-devel", "Readable log lines and debug level, for development", false)
    .addOption(
      new Option("--zap-encoder <encoder>", "Log lines as zap writes them: json, or console (tab-separated)")
        .choices(["json", "console"] as const).default("json" as const),
    )
    .addOption(
      new Option("--zap-time-encoding <encoding>", "How the ts field is written").choices(TIME_ENCODINGS)
        .default(
          "rfc3339" as TimeEncoding,
        ),
    );
}

type RunFlags = ReturnType<ReturnType<typeof runCommand>["opts"]>;

type Cmd = CommandUnknownOpts;
type BindAddress = { host: string; port: number };

/** Checks every flag (exit 2 with the flag named); reads only the certificate files' existence. */
function validate(flags: RunFlags, cmd: Cmd): RunOptions {
  const bind = (flag: string, value: string) => {
    try {
      return parseBindAddress(value);
    } catch (err) {
      return cmd.error(`${flag}: ${(err as Error).message}`);
    }
  };
  if (!/^[1-9]\d{0,2}$/.test(flags.concurrent)) {
    cmd.error(`--concurrent must be a whole number from 1 to 999, not "${flags.concurrent}"`);
  }
  const driftIntervalMs = flags.driftResyncInterval === "0"
    ? 0
    : parseDuration(flags.driftResyncInterval) ?? cmd.error(
      `--drift-resync-interval must be a duration like 30s or 5m, or 0, not "${flags.driftResyncInterval}"`,
    );
  const driftWatchKinds = flags.driftWatchKinds.split(",").map((k) => k.trim()).filter(Boolean);
  for (const k of driftWatchKinds) {
    if (!parseWatchKind(k)) {
      cmd.error(`--drift-watch-kinds: "${k}" is not a kind like v1/ConfigMap or apps/v1/Deployment`);
    }
  }
  const healthProbe = flags.healthProbeBindAddress === "0"
    ? undefined
    : bind("--health-probe-bind-address", flags.healthProbeBindAddress);
  const metrics = flags.metricsBindAddress === "0"
    ? undefined
    : metricsOf(flags, cmd, bind("--metrics-bind-address", flags.metricsBindAddress));
  const receiver = flags.webhookReceiverBindAddress
    ? bind("--webhook-receiver-bind-address", flags.webhookReceiverBindAddress)
    : undefined;
  const webhook = validateWebhook(flags, cmd, bind);
  // The manager's namespace: its webhook Secret, and its Lease unless --leader-election-namespace.
  const managerNamespace = process.env.POD_NAMESPACE ??
    (existsSync(IN_CLUSTER_NAMESPACE) ? readFileSync(IN_CLUSTER_NAMESPACE, "utf8").trim() : "gitsync-system");
  return {
    driftIntervalMs,
    driftWatchKinds,
    ...(healthProbe ? { healthProbe } : {}),
    ...(metrics ? { metrics } : {}),
    ...(receiver ? { receiver } : {}),
    ...webhook,
    managerNamespace,
  };
}

/** --metrics-*: secure (its certificate files must exist) or plain HTTP. */
function metricsOf(flags: RunFlags, cmd: Cmd, at: BindAddress): RunOptions["metrics"] {
  if (flags.metricsSecure !== "true") return at;
  const dir = flags.metricsCertPath;
  if (!dir) {
    return cmd.error(
      "--metrics-secure needs --metrics-cert-path (a directory with the endpoint's certificate and key), " +
        "or --metrics-secure=false for plain HTTP without authentication",
    );
  }
  const certFile = join(dir, flags.metricsCertName);
  const keyFile = join(dir, flags.metricsCertKey);
  for (const f of [certFile, keyFile]) {
    if (!existsSync(f)) throw new CliError(`the metrics endpoint needs ${f} (--metrics-cert-path)`, 2);
  }
  return { ...at, secure: { certFile, keyFile } };
}

/** The webhook's address, certificate source and validities; one source at most. */
function validateWebhook(
  flags: RunFlags,
  cmd: Cmd,
  bind: (flag: string, value: string) => BindAddress,
): Pick<
  RunOptions,
  "webhookAt" | "webhooksOn" | "webhookCertificate" | "certFiles" | "validityMs" | "caValidityMs"
> {
  const webhooksOn = process.env.ENABLE_WEBHOOKS !== "false";
  const duration = (flag: string, text: string) => {
    const ms = parseDuration(text) ?? 0;
    return ms >= 1000
      ? ms
      : cmd.error(`${flag} must be a duration of at least 1s like 8760h or 90s, not "${text}"`);
  };
  const validityMs = duration("--webhook-cert-validity", flags.webhookCertValidity);
  const caValidityMs = duration("--webhook-ca-validity", flags.webhookCaValidity);
  if (caValidityMs < 2 * validityMs) {
    cmd.error("--webhook-ca-validity must be at least twice --webhook-cert-validity");
  }
  const sources = [
    flags.webhookCertPath && "--webhook-cert-path",
    flags.webhookCertSecret && "--webhook-cert-secret",
    flags.localWebhook && "--local-webhook",
  ].filter(Boolean);
  if (sources.length > 1) {
    cmd.error(`choose one webhook certificate source, not ${sources.join(" and ")}`);
  }
  if (flags.localWebhook && !webhooksOn) {
    cmd.error("--local-webhook serves the approval webhook, which ENABLE_WEBHOOKS=false turns off");
  }
  if (
    flags.webhookCertSecret !== undefined &&
    !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(flags.webhookCertSecret)
  ) {
    cmd.error(`--webhook-cert-secret: "${flags.webhookCertSecret}" is not a Secret name`);
  }
  const webhookAt = bind("--webhook-bind-address", flags.webhookBindAddress);
  if (flags.localWebhook && !["0.0.0.0", "127.0.0.1", "localhost"].includes(webhookAt.host)) {
    cmd.error(`--local-webhook serves on 127.0.0.1; --webhook-bind-address names ${webhookAt.host}`);
  }
  const checked = { webhookAt, webhooksOn, validityMs, caValidityMs };
  if (!webhooksOn) return checked;
  if (flags.localWebhook) return { ...checked, webhookCertificate: "local" };
  if (flags.webhookCertSecret) return { ...checked, webhookCertificate: "secret" };
  const dir = flags.webhookCertPath ?? DEFAULT_CERT_DIR;
  const certFile = join(dir, flags.webhookCertName);
  const keyFile = join(dir, flags.webhookCertKey);
  for (const f of [certFile, keyFile]) {
    if (!existsSync(f)) {
      throw new CliError(
        `the admission webhook needs a certificate: ${f} does not exist. Use --webhook-cert-secret ` +
          `<name> (the manager issues its own), --webhook-cert-path <dir> (cert-manager's or your ` +
          `own), --local-webhook (outside a cluster), or set ENABLE_WEBHOOKS=false`,
        2,
      );
    }
  }
  return { ...checked, webhookCertificate: "files", certFiles: { certFile, keyFile } };
}

/** The action: validate, then (loading the controller only now) connect and serve until a stop signal. */
async function run(flags: RunFlags, cmd: Cmd): Promise<void> {
  const o = validate(flags, cmd);
  const { runManager } = await import("../../controller/gitsync/manager/run.ts");
  await runManager(flags, o);
}

export function registerRun(program: Command) {
  const command = runCommand(program).action((flags, cmd) => run(flags, cmd));
  addExamples(command, [
    "# On your machine against the current kubeconfig context, approvals through a local webhook\n" +
    "gitsync-manager run --local-webhook",
    "# In a cluster, as the chart runs it: two replicas, the manager's own webhook certificate\n" +
    "gitsync-manager run --leader-elect --webhook-cert-secret gitsync-webhook-cert",
    "# In a cluster with cert-manager's certificate mounted\n" +
    "gitsync-manager run --leader-elect --webhook-cert-path /tmp/k8s-webhook-server/serving-certs",
    "# Webhook off: approvals are ignored, only Applications that sync automatically deploy\n" +
    "ENABLE_WEBHOOKS=false gitsync-manager run",
  ]);
}
