/**
 * Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as client-go runs them:
 * the command gets the caller's environment plus the configured `env` and KUBERNETES_EXEC_INFO (an
 * ExecCredential whose spec says whether it may prompt and, with provideClusterInfo, the cluster);
 * its stdout must be an ExecCredential whose status holds a bearer token or a client certificate and
 * key. Its stderr goes to ours, so prompts and warnings reach the user. Credentials are reused until
 * their expirationTimestamp, or for the life of the process when there is none.
 */
import { spawn } from "node:child_process";
import { ExecPluginError } from "./errors.ts";
import type { ClusterConfig, ExecConfig } from "./kubeconfig.ts";

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** RFC 3339. */
  expirationTimestamp?: string;
}

const API_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"];

export interface RunExecOptions {
  /** Passed to the plugin when exec.provideClusterInfo is set. */
  cluster?: ClusterConfig;
  /** Base environment (default process.env). */
  env?: Record<string, string | undefined>;
  /** Whether stdin is a terminal the plugin may prompt on (default process.stdin.isTTY). */
  stdinIsTerminal?: boolean;
  /** Where the plugin's stderr goes: "inherit" (default) or "pipe" (kept for error messages). */
  stderr?: "inherit" | "pipe";
}

function clusterInfo(c: ClusterConfig): Record<string, unknown> {
  return {
    server: c.server,
    ...(c.tlsServerName ? { "tls-server-name": c.tlsServerName } : {}),
    ...(c.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
    ...(c.caData ? { "certificate-authority-data": Buffer.from(c.caData).toString("base64") } : {}),
    ...(c.proxyUrl ? { "proxy-url": c.proxyUrl } : {}),
  };
}

/** Runs the plugin once and returns its credential. Throws ExecPluginError with the reason. */
export async function runExecPlugin(
  exec: ExecConfig,
  options: RunExecOptions = {},
): Promise<ExecCredentialStatus> {
  if (!API_VERSIONS.includes(exec.apiVersion)) {
    throw new ExecPluginError(
      `exec plugin: unsupported apiVersion "${exec.apiVersion}" (supported: ${API_VERSIONS.join(", ")})`,
    );
  }
  const terminal = options.stdinIsTerminal ?? Boolean(process.stdin.isTTY);
  const interactive = exec.interactiveMode !== "Never" && terminal;
  if (exec.interactiveMode === "Always" && !terminal) {
    throw new ExecPluginError(
      "exec plugin cannot support interactive mode: standard input is not a terminal",
    );
  }
  const info = {
    kind: "ExecCredential",
    apiVersion: exec.apiVersion,
    spec: {
      interactive,
      ...(exec.provideClusterInfo && options.cluster ? { cluster: clusterInfo(options.cluster) } : {}),
    },
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
  for (const e of exec.env) env[e.name] = e.value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify(info);

  const { code, stdout, stderr, spawnError } = await new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    spawnError?: NodeJS.ErrnoException;
  }>((resolve) => {
    const child = spawn(exec.command, exec.args, {
      env,
      stdio: [interactive ? "inherit" : "ignore", "pipe", options.stderr ?? "inherit"],
    });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", (e) => resolve({ code: null, stdout: out, stderr: err, spawnError: e }));
    child.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
  });
  if (spawnError) {
    const hint = exec.installHint ? `\n${exec.installHint.trim()}` : "";
    throw new ExecPluginError(
      spawnError.code === "ENOENT"
        ? `exec plugin: executable ${exec.command} not found${hint}`
        : `exec plugin: cannot run ${exec.command}: ${spawnError.message}`,
    );
  }
  if (code !== 0) {
    const detail = stderr.trim().split("\n").slice(-3).join(" ");
    throw new ExecPluginError(
      `exec plugin ${exec.command} exited with code ${code}${detail ? `: ${detail}` : ""}`,
    );
  }
  return parseExecCredential(stdout, exec);
}

/** Validates a plugin's output the way client-go does. */
export function parseExecCredential(stdout: string, exec: ExecConfig): ExecCredentialStatus {
  let cred: { kind?: string; apiVersion?: string; status?: Record<string, unknown> };
  try {
    cred = JSON.parse(stdout);
  } catch {
    throw new ExecPluginError(`exec plugin ${exec.command} did not print an ExecCredential as JSON`);
  }
  if (cred?.kind !== "ExecCredential") {
    throw new ExecPluginError(`exec plugin ${exec.command} printed kind "${cred?.kind}", not ExecCredential`);
  }
  if (cred.apiVersion !== exec.apiVersion) {
    throw new ExecPluginError(
      `exec plugin is configured to use API version ${exec.apiVersion}, plugin returned version ${cred.apiVersion}`,
    );
  }
  const s = cred.status;
  if (!s || typeof s !== "object") throw new ExecPluginError("exec plugin didn't return a status field");
  const status: ExecCredentialStatus = {
    token: typeof s.token === "string" && s.token ? s.token : undefined,
    clientCertificateData: typeof s.clientCertificateData === "string" && s.clientCertificateData
      ? s.clientCertificateData
      : undefined,
    clientKeyData: typeof s.clientKeyData === "string" && s.clientKeyData ? s.clientKeyData : undefined,
    expirationTimestamp: typeof s.expirationTimestamp === "string" ? s.expirationTimestamp : undefined,
  };
  if (!status.token && !status.clientCertificateData && !status.clientKeyData) {
    throw new ExecPluginError("exec plugin didn't return a token or cert/key pair");
  }
  if (Boolean(status.clientCertificateData) !== Boolean(status.clientKeyData)) {
    throw new ExecPluginError(
      "exec plugin returned only certificate or key, not both",
    );
  }
  if (status.expirationTimestamp && Number.isNaN(Date.parse(status.expirationTimestamp))) {
    throw new ExecPluginError(
      `exec plugin returned an invalid expirationTimestamp "${status.expirationTimestamp}"`,
    );
  }
  return status;
}

/**
 * Runs the plugin on demand and reuses its credential until it expires. Concurrent callers share one
 * plugin run. `invalidate()` after a 401 forces a fresh run.
 */
export class ExecCredentialProvider {
  private cached?: ExecCredentialStatus;
  private pending?: Promise<ExecCredentialStatus>;

  constructor(
    private readonly exec: ExecConfig,
    private readonly options: RunExecOptions & { now?: () => number } = {},
  ) {}

  async get(): Promise<ExecCredentialStatus> {
    if (this.cached && !this.expired(this.cached)) return this.cached;
    this.pending ??= runExecPlugin(this.exec, this.options).then(
      (c) => {
        this.cached = c;
        this.pending = undefined;
        return c;
      },
      (err) => {
        this.pending = undefined;
        throw err;
      },
    );
    return await this.pending;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private expired(c: ExecCredentialStatus): boolean {
    if (!c.expirationTimestamp) return false;
    const now = this.options.now?.() ?? Date.now();
    return Date.parse(c.expirationTimestamp) <= now;
  }
}
