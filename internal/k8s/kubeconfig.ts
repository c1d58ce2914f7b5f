/**
 * Reads kubeconfig files the way kubectl (client-go's clientcmd) does:
 *
 * - which files: an explicit path (`--kubeconfig`) must exist and is the only file; otherwise
 *   $KUBECONFIG, a list separated by ":" (";" on Windows) whose missing entries are skipped; otherwise
 *   ~/.kube/config. With none of them, the in-cluster service account when running in a pod.
 * - merging: the first file that defines a cluster, user or context name wins; the first file that
 *   sets current-context wins.
 * - relative file paths (certificate-authority, client-certificate, client-key, tokenFile, and an exec
 *   command containing a "/") resolve against the directory of the file that defined them.
 *
 *   const cfg = loadKubeconfig({ context: flags.context });
 *   cfg.cluster.server; cfg.namespace; cfg.user.exec?.command
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { KubeconfigError } from "./errors.ts";

/** Exec credential plugin settings (`users[].user.exec`). */
export interface ExecConfig {
  apiVersion: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo: boolean;
  /** client.authentication.k8s.io/v1 requires it; v1beta1 defaults to IfAvailable. */
  interactiveMode: "Never" | "IfAvailable" | "Always";
}

export interface ClusterConfig {
  name: string;
  server: string;
  /** PEM from certificate-authority-data. */
  caData?: string;
  /** Absolute path from certificate-authority. */
  caFile?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

export interface UserConfig {
  name: string;
  token?: string;
  /** Absolute path; re-read when it changes (bound service-account tokens rotate). */
  tokenFile?: string;
  /** PEM from client-certificate-data / client-key-data. */
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Absolute paths from client-certificate / client-key. */
  clientCertificateFile?: string;
  clientKeyFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  /** Set when the user uses a legacy auth-provider (gcp, azure, oidc), which is not supported. */
  authProvider?: string;
}

export interface ResolvedKubeconfig {
  /** The files that were read, in merge order (empty for in-cluster). */
  files: string[];
  /** The context in use ("" for in-cluster). */
  contextName: string;
  cluster: ClusterConfig;
  user: UserConfig;
  /** The context's namespace, or "default". */
  namespace: string;
  /** True when the namespace came from the context (or the in-cluster namespace file). */
  namespaceFromConfig: boolean;
  /** All context names across the merged files, for `config get-contexts`-style listings. */
  contexts: string[];
}

export interface LoadKubeconfigOptions {
  /** Explicit file (`--kubeconfig`); must exist. */
  path?: string;
  /** Context to use instead of current-context (`--context`). */
  context?: string;
  /** Cluster / user to use instead of the context's (`--cluster`, `--user`). */
  cluster?: string;
  user?: string;
  /** Environment (default process.env): KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST/PORT. */
  env?: Record<string, string | undefined>;
  /** Where the in-cluster service account lives (for tests). */
  serviceAccountDir?: string;
}

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The kubeconfig files kubectl would read, in merge order. Missing $KUBECONFIG entries are dropped. */
export function kubeconfigFiles(
  options: Pick<LoadKubeconfigOptions, "path" | "env"> = {},
): { files: string[]; explicit: boolean } {
  const env = options.env ?? process.env;
  if (options.path) return { files: [resolve(options.path)], explicit: true };
  if (env.KUBECONFIG) {
    const seen = new Set<string>();
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean).map((p) => resolve(p)).filter((p) => {
      if (seen.has(p)) return false;
      seen.add(p);
      return existsSync(p);
    });
    return { files, explicit: false };
  }
  const home = env.HOME || homedir();
  const file = join(home, ".kube", "config");
  return { files: existsSync(file) ? [file] : [], explicit: false };
}

type Raw = Record<string, unknown>;

interface Named<T> {
  value: T;
  dir: string;
  file: string;
}

interface Merged {
  clusters: Map<string, Named<Raw>>;
  users: Map<string, Named<Raw>>;
  contexts: Map<string, Named<Raw>>;
  currentContext?: string;
}

function readFile(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new KubeconfigError(
      e.code === "ENOENT" ? "missing-file" : "invalid",
      e.code === "ENOENT"
        ? `kubeconfig ${file} does not exist`
        : `cannot read kubeconfig ${file}: ${e.message}`,
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    // Only the first line: the yaml package appends the offending source lines, which in a kubeconfig
    // can be a token or a client key.
    const reason = (err as Error).message.split("\n")[0];
    throw new KubeconfigError("invalid", `kubeconfig ${file} is not valid YAML: ${reason}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw new KubeconfigError("invalid", `kubeconfig ${file} is not a mapping`);
  }
  return doc as Raw;
}

function mergeFiles(files: string[]): Merged {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    const doc = readFile(file);
    const dir = dirname(file);
    const add = (list: unknown, field: string, into: Map<string, Named<Raw>>) => {
      if (list === undefined || list === null) return;
      if (!Array.isArray(list)) {
        throw new KubeconfigError("invalid", `kubeconfig ${file}: ${field} is not a list`);
      }
      for (const entry of list as Raw[]) {
        const name = entry?.name;
        if (typeof name !== "string" || !name) continue;
        const inner = field === "clusters" ? entry.cluster : field === "users" ? entry.user : entry.context;
        if (!into.has(name)) into.set(name, { value: (inner ?? {}) as Raw, dir, file });
      }
    };
    add(doc.clusters, "clusters", merged.clusters);
    add(doc.users, "users", merged.users);
    add(doc.contexts, "contexts", merged.contexts);
    const current = doc["current-context"];
    if (merged.currentContext === undefined && typeof current === "string" && current) {
      merged.currentContext = current;
    }
  }
  return merged;
}

function str(raw: Raw, key: string): string | undefined {
  const v = raw[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

function abs(dir: string, path: string | undefined): string | undefined {
  if (!path) return undefined;
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? path : join(dir, path);
}

function decodeData(raw: Raw, key: string, where: string): string | undefined {
  const v = str(raw, key);
  if (!v) return undefined;
  const text = Buffer.from(v, "base64").toString("utf8");
  if (!text.includes("-----BEGIN")) {
    throw new KubeconfigError("invalid", `${where}: ${key} is not base64-encoded PEM data`);
  }
  return text;
}

function toCluster(name: string, n: Named<Raw>): ClusterConfig {
  const raw = n.value;
  const where = `cluster "${name}" in ${n.file}`;
  const server = str(raw, "server");
  if (!server) throw new KubeconfigError("invalid", `${where} has no server`);
  return {
    name,
    server: server.replace(/\/+$/, ""),
    caData: decodeData(raw, "certificate-authority-data", where),
    caFile: abs(n.dir, str(raw, "certificate-authority")),
    insecureSkipTlsVerify: raw["insecure-skip-tls-verify"] === true,
    tlsServerName: str(raw, "tls-server-name"),
    proxyUrl: str(raw, "proxy-url"),
  };
}

function toExec(raw: Raw, dir: string, where: string): ExecConfig {
  const command = str(raw, "command");
  if (!command) throw new KubeconfigError("invalid", `${where}: exec has no command`);
  const apiVersion = str(raw, "apiVersion");
  if (!apiVersion) throw new KubeconfigError("invalid", `${where}: exec has no apiVersion`);
  const mode = str(raw, "interactiveMode");
  if (mode && !["Never", "IfAvailable", "Always"].includes(mode)) {
    throw new KubeconfigError("invalid", `${where}: invalid exec interactiveMode "${mode}"`);
  }
  if (!mode && apiVersion === "client.authentication.k8s.io/v1") {
    throw new KubeconfigError(
      "invalid",
      `${where}: exec interactiveMode must be specified for ${apiVersion}`,
    );
  }
  const env = Array.isArray(raw.env) ? (raw.env as Raw[]) : [];
  return {
    apiVersion,
    // client-go resolves a command with a path separator against the kubeconfig's directory.
    command: command.includes("/") ? abs(dir, command)! : command,
    args: Array.isArray(raw.args) ? (raw.args as unknown[]).map(String) : [],
    env: env.map((e) => ({ name: String(e?.name ?? ""), value: String(e?.value ?? "") })),
    installHint: str(raw, "installHint"),
    provideClusterInfo: raw.provideClusterInfo === true,
    interactiveMode: (mode ?? "IfAvailable") as ExecConfig["interactiveMode"],
  };
}

function toUser(name: string, n: Named<Raw>): UserConfig {
  const raw = n.value;
  const where = `user "${name}" in ${n.file}`;
  const exec = raw.exec && typeof raw.exec === "object" ? toExec(raw.exec as Raw, n.dir, where) : undefined;
  const authProvider = raw["auth-provider"] as Raw | undefined;
  return {
    name,
    token: str(raw, "token"),
    tokenFile: abs(n.dir, str(raw, "tokenFile")),
    clientCertificateData: decodeData(raw, "client-certificate-data", where),
    clientKeyData: decodeData(raw, "client-key-data", where),
    clientCertificateFile: abs(n.dir, str(raw, "client-certificate")),
    clientKeyFile: abs(n.dir, str(raw, "client-key")),
    username: str(raw, "username"),
    password: str(raw, "password"),
    exec,
    authProvider: authProvider ? String(authProvider.name ?? "unknown") : undefined,
  };
}

/** The in-cluster configuration kubectl falls back to inside a pod; undefined elsewhere. */
export function inClusterConfig(
  env: Record<string, string | undefined> = process.env,
  dir = SERVICE_ACCOUNT_DIR,
): ResolvedKubeconfig | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenFile = join(dir, "token");
  if (!host || !port || !existsSync(tokenFile)) return undefined;
  const nsFile = join(dir, "namespace");
  const namespace = existsSync(nsFile) ? readFileSync(nsFile, "utf8").trim() : "";
  const caFile = join(dir, "ca.crt");
  return {
    files: [],
    contextName: "",
    cluster: {
      name: "in-cluster",
      server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
      caFile: existsSync(caFile) ? caFile : undefined,
      insecureSkipTlsVerify: false,
    },
    user: { name: "service-account", tokenFile },
    namespace: namespace || "default",
    namespaceFromConfig: namespace !== "",
    contexts: [],
  };
}

/** Loads and resolves the kubeconfig kubectl would use. Throws KubeconfigError with a clear message. */
export function loadKubeconfig(options: LoadKubeconfigOptions = {}): ResolvedKubeconfig {
  const env = options.env ?? process.env;
  const { files } = kubeconfigFiles(options);
  if (files.length === 0) {
    const inCluster = options.context ? undefined : inClusterConfig(env, options.serviceAccountDir);
    if (inCluster) return inCluster;
    const where = env.KUBECONFIG
      ? `none of the files in KUBECONFIG exist (${env.KUBECONFIG})`
      : `${join(env.HOME || homedir(), ".kube", "config")} does not exist`;
    throw new KubeconfigError(
      "no-config",
      `no kubeconfig found: ${where}; pass --kubeconfig or set KUBECONFIG`,
    );
  }
  const merged = mergeFiles(files);
  const source = files.length === 1 ? files[0] : `${files.length} kubeconfig files (${files.join(", ")})`;
  const contextName = options.context || merged.currentContext;
  if (!contextName) {
    throw new KubeconfigError(
      "no-current-context",
      `no current context is set in ${source}; pass --context or run \`kubectl config use-context\``,
    );
  }
  const context = merged.contexts.get(contextName);
  if (!context) {
    const known = [...merged.contexts.keys()];
    throw new KubeconfigError(
      "unknown-context",
      `context "${contextName}" does not exist in ${source}` +
        (known.length ? ` (contexts: ${known.join(", ")})` : ""),
    );
  }
  const clusterName = options.cluster || str(context.value, "cluster") || "";
  const clusterEntry = merged.clusters.get(clusterName);
  if (!clusterEntry) {
    throw new KubeconfigError(
      "unknown-cluster",
      `context "${contextName}" uses cluster "${clusterName}", which does not exist in ${source}`,
    );
  }
  const userName = options.user || str(context.value, "user") || "";
  const userEntry = merged.users.get(userName);
  // kubectl accepts a context without a user (anonymous); a named but undefined user is an error.
  if (userName && !userEntry) {
    throw new KubeconfigError(
      "unknown-user",
      `context "${contextName}" uses user "${userName}", which does not exist in ${source}`,
    );
  }
  const namespace = str(context.value, "namespace");
  return {
    files,
    contextName,
    cluster: toCluster(clusterName, clusterEntry),
    user: userEntry ? toUser(userName, userEntry) : { name: "" },
    namespace: namespace ?? "default",
    namespaceFromConfig: namespace !== undefined,
    contexts: [...merged.contexts.keys()],
  };
}
