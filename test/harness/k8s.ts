/**
 * A throwaway Kubernetes cluster for integration tests: kube-apiserver + etcd, and with
 * `workloads: true` also kube-controller-manager, kube-scheduler and kwok's fake nodes, so that
 * Deployments roll out, Pods become Running and Ready, Jobs complete and Pods can be made to fail
 * (test/k8s/kwok/stages.yaml). Binaries come from the cache that `deno task testenv:build` fills (the
 * test command runs it first); this module never builds, because a cold build takes many minutes.
 * Everything listens on free loopback ports, with certificates generated per start (openssl), RBAC
 * authorization and an admin (system:masters) client certificate.
 *
 *   const k8s = await startKubeApiServer({ workloads: true });
 *   // KUBECONFIG=k8s.kubeconfigPath
 *   await k8s.stop();
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "./ports.ts";
import { cachedBinary, type Component } from "../../scripts/testenv/go_build.ts";
import {
  ETCD,
  KUBE_APISERVER,
  KUBE_CONTROLLER_MANAGER,
  KUBE_SCHEDULER,
  KWOK,
} from "../../scripts/testenv/servers.ts";

const run = promisify(execFile);

export interface KubeApiServer {
  /** Admin kubeconfig (certificates embedded), user "admin" in group system:masters. */
  kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** PEM files, for clients that do not read kubeconfigs. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** Milliseconds from the call until /readyz answered ok. */
  startupMs: number;
  /** The fake nodes' names with `workloads: true` (kwok-node-0, ...); empty otherwise. */
  nodes: string[];
  /** With `workloads: true`: log lines kwok serves through pods/log (see PodLogs). */
  setPodLogs(logs: PodLogs): Promise<void>;
  /**
   * Writes a kubeconfig for another user: a client certificate signed by the cluster CA with
   * CN=`user` and O=each of `groups`. Without RBAC bindings such a user is refused (Forbidden).
   */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** Stops every server it started and deletes their files. Safe to call twice. */
  stop(): Promise<void>;
}

export interface KubeBinaries {
  kubeApiServer: string;
  etcd: string;
}

export interface WorkloadBinaries {
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
}

/** `deno task testenv:build <name>`: the command that builds a missing component. */
function missing(c: Component): Error {
  return new Error(
    `${c.name} ${c.version} is not built: run \`deno task testenv:build ${c.name}\`` +
      " (the test command, `npm test`, builds every test server before the tests)",
  );
}

/**
 * The binaries to run: K8S_TEST_KUBE_APISERVER / K8S_TEST_ETCD when set, else the cached builds;
 * for etcd the cached etcd 3.5 build when there is one, else Debian's /usr/bin/etcd (3.4.23).
 * Throws naming the command that builds what is missing.
 */
export function kubeBinaries(): KubeBinaries {
  const kubeApiServer = process.env.K8S_TEST_KUBE_APISERVER || cachedBinary(KUBE_APISERVER);
  if (!kubeApiServer) throw missing(KUBE_APISERVER);
  const etcd = process.env.K8S_TEST_ETCD || cachedBinary(ETCD) ||
    (existsSync("/usr/bin/etcd") ? "/usr/bin/etcd" : undefined);
  if (!etcd) throw missing(ETCD);
  return { kubeApiServer, etcd };
}

/** kube-controller-manager, kube-scheduler and kwok from the cache; throws naming what is missing. */
export function workloadBinaries(): WorkloadBinaries {
  const [kubeControllerManager, kubeScheduler, kwok] = [KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KWOK]
    .map((c) =>
      cachedBinary(c) ?? (() => {
        throw missing(c);
      })()
    );
  return { kubeControllerManager: kubeControllerManager!, kubeScheduler: kubeScheduler!, kwok: kwok! };
}

async function openssl(dir: string, args: string[]): Promise<void> {
  await run("openssl", args, { cwd: dir });
}

/** A CA, a serving certificate for 127.0.0.1/localhost, an admin client certificate and a service-account key. */
async function generatePki(dir: string): Promise<void> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  // deno-fmt-ignore
  await openssl(dir, [
    "req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
    "-subj", "/CN=toolkit-k8s-test-ca",
    "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  // deno-fmt-ignore
  const leaf = (name: string, subj: string, eku: string, san?: string) =>
    openssl(dir, [
      "req", "-x509", "-CA", "ca.crt", "-CAkey", "ca.key", ...ec, "-keyout", `${name}.key`,
      "-out", `${name}.crt`, "-days", "2", "-subj", subj,
      "-addext", "basicConstraints=critical,CA:FALSE",
      "-addext", "keyUsage=critical,digitalSignature,keyEncipherment",
      "-addext", `extendedKeyUsage=${eku}`,
      ...(san ? ["-addext", `subjectAltName=${san}`] : []),
    ]);
  await Promise.all([
    leaf("serving", "/CN=kube-apiserver", "serverAuth", "IP:127.0.0.1,DNS:localhost,IP:10.0.0.1"),
    leaf("admin", "/O=system:masters/CN=admin", "clientAuth"),
    // SEC1 ("EC PRIVATE KEY"): kube-apiserver does not read the PKCS#8 that genpkey writes.
    openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sa.key"]),
  ]);
}

/** A client certificate for `user` in `groups`, signed by the CA in `dir`; returns PEM cert and key. */
async function issueClientCert(
  dir: string,
  user: string,
  groups: string[],
): Promise<{ cert: string; key: string }> {
  const safe = (v: string) => v.replace(/[/\\=+,]/g, "_");
  const subj = [...groups.map((g) => `/O=${safe(g)}`), `/CN=${safe(user)}`].join("");
  const base = `user-${Buffer.from(user).toString("hex")}`;
  // deno-fmt-ignore
  await openssl(dir, [
    "req", "-x509", "-CA", "ca.crt", "-CAkey", "ca.key", "-newkey", "ec", "-pkeyopt",
    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", `${base}.key`, "-out", `${base}.crt`,
    "-days", "2", "-subj", subj,
    "-addext", "basicConstraints=critical,CA:FALSE",
    "-addext", "keyUsage=critical,digitalSignature,keyEncipherment",
    "-addext", "extendedKeyUsage=clientAuth",
  ]);
  const [cert, key] = await Promise.all(
    [`${base}.crt`, `${base}.key`].map((f) => readFile(join(dir, f), "utf8")),
  );
  return { cert: cert!, key: key! };
}

function kubeconfig(server: string, ca: string, cert: string, key: string): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: ${server}
    certificate-authority-data: ${b64(ca)}
users:
- name: admin
  user:
    client-certificate-data: ${b64(cert)}
    client-key-data: ${b64(key)}
contexts:
- name: test
  context:
    cluster: test
    user: admin
current-context: test
`;
}

function startProcess(bin: string, args: string[], logFile: string, cwd: string): ChildProcess {
  const out = openSync(logFile, "a");
  return spawn(bin, args, { cwd, stdio: ["ignore", out, out] });
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

function get(
  url: string,
  tls: { ca: string; cert?: string; key?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, timeout: 2000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** etcd's /health over its Unix socket. */
function etcdHealthy(socketPath: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, path: "/health", timeout: 2000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  alive: () => string | undefined,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const dead = alive();
    if (dead) throw new Error(dead);
    try {
      if (await check()) return;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms${last ? ` (${last})` : ""}`);
}

export interface StartOptions {
  /** Override the binaries (defaults: kubeBinaries()). */
  binaries?: KubeBinaries;
  /**
   * Also run kube-controller-manager (workload controllers), kube-scheduler and kwok with fake nodes,
   * so that Pods are scheduled and run; default false (API only, 3 s faster to start).
   */
  workloads?: boolean;
  /** Fake nodes with `workloads` (kwok-node-0, ...); default 2. */
  nodes?: number;
  /** Readiness timeout for each server; default 60 s. */
  timeoutMs?: number;
  /** Keep the temp dir (logs, certificates) after stop(); default false. */
  keepFiles?: boolean;
}

/** Pod log lines served through pods/log by kwok (see setPodLogs). */
export interface PodLogs {
  namespace: string;
  /** One Pod; all Pods of the namespace when left out. */
  pod?: string;
  /** Containers the lines belong to; all when left out. */
  containers?: string[];
  /** Lines with their times (CRI log format is written for them); `stream` defaults to stdout. */
  lines: { time: Date; text: string; stream?: "stdout" | "stderr" }[];
}

/** The annotation test/k8s/kwok/stages.yaml reads to make a Pod fail like a real one. */
export const POD_OUTCOME_ANNOTATION = "sim.toolkit.test/outcome";
export type PodOutcome = "fail" | "crashloop" | "image-pull-backoff";

/** The controllers kube-controller-manager runs with `workloads: true`. */
export const WORKLOAD_CONTROLLERS = [
  "deployment-controller",
  "replicaset-controller",
  "statefulset-controller",
  "daemonset-controller",
  "job-controller",
  "cronjob-controller",
  "ttl-after-finished-controller",
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
  "endpointslice-controller",
  "clusterrole-aggregation-controller",
];

export async function startKubeApiServer(options: StartOptions = {}): Promise<KubeApiServer> {
  const started = performance.now();
  const bins = options.binaries ?? kubeBinaries();
  const workloadBins = options.workloads ? workloadBinaries() : undefined;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const dir = await mkdtemp(join(tmpdir(), "k8s-test-"));
  const children: { name: string; child: ChildProcess }[] = [];
  let stopped = false;
  const onExit = () => {
    for (const { child } of children) child.kill("SIGKILL");
  };
  process.once("exit", onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", onExit);
    // Controllers first, etcd last: the reverse of the start order.
    for (const { child } of [...children].reverse()) await stopProcess(child);
    if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
  };
  const f = (name: string) => join(dir, name);
  const start = (name: string, bin: string, args: string[]) => {
    const log = f(`${name}.log`);
    const child = startProcess(bin, args, log, dir);
    children.push({ name, child });
    return () =>
      child.exitCode !== null || child.signalCode !== null
        ? `${name} exited (${child.signalCode ?? `exit ${child.exitCode}`}); last lines of ${log}:\n${
          tail(log)
        }`
        : undefined;
  };
  try {
    const [, securePort, kwokPort] = await Promise.all([generatePki(dir), freePort(), freePort()]);
    // etcd listens on Unix sockets in the cluster's directory (every process runs there: etcd takes
    // the socket's path from the URL's host part). A TCP port picked by freePort can be taken by
    // another suite's etcd before ours binds it, and plain-HTTP etcd would then answer for both:
    // the API server stored its objects in the other cluster (seen as "kwok-node-0 already exists").
    const etcdUrl = "unix://etcd.sock:0";
    const peerUrl = "unix://etcd-peer.sock:0";
    const etcdDead = start("etcd", bins.etcd, [
      "--name=default",
      `--data-dir=${f("etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      "--logger=zap",
      "--log-level=warn",
    ]);
    await waitUntil(
      "etcd",
      () => etcdHealthy(f("etcd.sock:0")),
      etcdDead,
      timeoutMs,
    );

    const server = `https://127.0.0.1:${securePort}`;
    const apiDead = start("kube-apiserver", bins.kubeApiServer, [
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${securePort}`,
      `--cert-dir=${f("certs")}`,
      `--tls-cert-file=${f("serving.crt")}`,
      `--tls-private-key-file=${f("serving.key")}`,
      `--client-ca-file=${f("ca.crt")}`,
      `--service-account-key-file=${f("sa.key")}`,
      `--service-account-signing-key-file=${f("sa.key")}`,
      `--service-account-issuer=${server}`,
      "--authorization-mode=RBAC",
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      // The kubernetes Service cannot point at a loopback address; don't try every 10 s.
      "--endpoint-reconciler-type=none",
      // pods/log, exec and port-forward go to kwok's kubelet API on the fake nodes' address.
      "--kubelet-preferred-address-types=InternalIP",
      `--kubelet-client-certificate=${f("admin.crt")}`,
      `--kubelet-client-key=${f("admin.key")}`,
    ]);
    const [ca, cert, key] = await Promise.all(
      ["ca.crt", "admin.crt", "admin.key"].map((n) => readFile(f(n), "utf8")),
    );
    await waitUntil(
      "kube-apiserver",
      async () => (await get(`${server}/readyz`, { ca: ca!, cert, key })).status === 200,
      apiDead,
      timeoutMs,
    );
    const kubeconfigPath = f("kubeconfig");
    await writeFile(kubeconfigPath, kubeconfig(server, ca!, cert!, key!), { mode: 0o600 });
    const admin = { ca: ca!, cert: cert!, key: key! };

    let setPodLogs: KubeApiServer["setPodLogs"] = () =>
      Promise.reject(new Error("pod logs need startKubeApiServer({ workloads: true })"));
    if (workloadBins) {
      await startWorkloads({
        dir,
        server,
        admin,
        kubeconfigPath,
        kwokPort,
        bins: workloadBins,
        start,
        timeoutMs,
        nodes: options.nodes ?? 2,
      });
      setPodLogs = (logs) => writePodLogs(server, admin, dir, logs);
    }
    return {
      kubeconfigPath,
      server,
      caFile: f("ca.crt"),
      clientCertFile: f("admin.crt"),
      clientKeyFile: f("admin.key"),
      startupMs: performance.now() - started,
      nodes: workloadBins ? nodeNames(options.nodes ?? 2) : [],
      userKubeconfig: async (user: string, groups: string[] = []) => {
        const { cert: userCert, key: userKey } = await issueClientCert(dir, user, groups);
        const path = f(`kubeconfig-${Buffer.from(user).toString("hex")}`);
        await writeFile(path, kubeconfig(server, ca!, userCert, userKey), { mode: 0o600 });
        return path;
      },
      setPodLogs,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

const nodeNames = (n: number) => Array.from({ length: n }, (_, i) => `kwok-node-${i}`);

interface AdminTls {
  ca: string;
  cert: string;
  key: string;
}

/** Sends one JSON request with the admin certificate; throws on a status >= 400. */
function api(
  server: string,
  tls: AdminTls,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${server}${path}`, {
      ...tls,
      method,
      timeout: 10_000,
      headers: { accept: "application/json", ...(data ? { "content-type": contentType } : {}) },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on(
        "end",
        () =>
          (res.statusCode ?? 0) >= 400
            ? reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`))
            : resolve(text ? JSON.parse(text) : undefined),
      );
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(data);
  });
}

/** kwok's Logs and ClusterLogs kinds, as minimal CRDs of our own: kwok reads them when they exist. */
function kwokLogsCrd(kind: "Logs" | "ClusterLogs") {
  const plural = kind.toLowerCase();
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.kwok.x-k8s.io` },
    spec: {
      group: "kwok.x-k8s.io",
      names: { kind, listKind: `${kind}List`, plural, singular: plural },
      scope: kind === "Logs" ? "Namespaced" : "Cluster",
      versions: [{
        name: "v1alpha1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      }],
    },
  };
}

interface WorkloadStart {
  dir: string;
  server: string;
  admin: AdminTls;
  kubeconfigPath: string;
  kwokPort: number;
  bins: WorkloadBinaries;
  start: (name: string, bin: string, args: string[]) => () => string | undefined;
  timeoutMs: number;
  nodes: number;
}

/**
 * Starts the workload controllers, the scheduler and kwok, registers the fake nodes and waits until
 * they are Ready and the default namespace has its ServiceAccount (Pods are refused before that).
 */
async function startWorkloads(w: WorkloadStart): Promise<void> {
  const f = (name: string) => join(w.dir, name);
  for (const kind of ["Logs", "ClusterLogs"] as const) {
    await api(
      w.server,
      w.admin,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      kwokLogsCrd(kind),
    );
  }
  const kcmDead = w.start("kube-controller-manager", w.bins.kubeControllerManager, [
    `--kubeconfig=${w.kubeconfigPath}`,
    `--controllers=${WORKLOAD_CONTROLLERS.join(",")}`,
    "--leader-elect=false",
    "--secure-port=0",
    `--service-account-private-key-file=${f("sa.key")}`,
    `--root-ca-file=${f("ca.crt")}`,
    "--use-service-account-credentials=false",
  ]);
  const schedulerDead = w.start("kube-scheduler", w.bins.kubeScheduler, [
    `--kubeconfig=${w.kubeconfigPath}`,
    "--leader-elect=false",
    "--secure-port=0",
  ]);
  const kwokDead = w.start("kwok", w.bins.kwok, [
    `--kubeconfig=${w.kubeconfigPath}`,
    `--config=${STAGES}`,
    "--manage-all-nodes=false",
    "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
    "--node-ip=127.0.0.1",
    `--node-port=${w.kwokPort}`,
    `--server-address=127.0.0.1:${w.kwokPort}`,
    `--tls-cert-file=${f("serving.crt")}`,
    `--tls-private-key-file=${f("serving.key")}`,
    "--cidr=10.244.0.0/16",
    "--enable-crds=Logs,ClusterLogs",
  ]);
  const dead = () => kcmDead() ?? schedulerDead() ?? kwokDead();
  for (const name of nodeNames(w.nodes)) {
    await api(w.server, w.admin, "POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          type: "kwok",
        },
      },
    });
  }
  await waitUntil(
    "kwok's fake nodes",
    async () => {
      const list = await api(w.server, w.admin, "GET", "/api/v1/nodes") as {
        items: { status?: { conditions?: { type: string; status: string }[] } }[];
      };
      return list.items.length === w.nodes &&
        list.items.every((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
    },
    dead,
    w.timeoutMs,
  );
  // The TaintNodesByCondition admission plugin taints every new node not-ready; the node lifecycle
  // controller (not run here: it would need kubelet heartbeats) lifts the taint once the node is
  // Ready, so do what it does.
  for (const name of nodeNames(w.nodes)) {
    await api(
      w.server,
      w.admin,
      "PATCH",
      `/api/v1/nodes/${name}`,
      { spec: { taints: null } },
      "application/merge-patch+json",
    );
  }
  await waitUntil(
    "the default ServiceAccount",
    async () => {
      await api(w.server, w.admin, "GET", "/api/v1/namespaces/default/serviceaccounts/default");
      return true;
    },
    dead,
    w.timeoutMs,
  );
}

const STAGES = join(dirname(fileURLToPath(import.meta.url)), "..", "k8s", "kwok", "stages.yaml");

/** RFC 3339 with nanoseconds, as the CRI log format writes times. */
function criTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");
}

let podLogsSeq = 0;

/**
 * Makes kwok serve these lines as the logs of a Pod (or of every Pod in a namespace) through the
 * pods/log subresource, as a kubelet would; call it again with more lines to append (a follower
 * sees them arrive).
 */
async function writePodLogs(server: string, admin: AdminTls, dir: string, logs: PodLogs): Promise<void> {
  const name = logs.pod ?? `all-${logs.namespace}`;
  const file = join(dir, "pod-logs", `${logs.namespace}_${name}.log`);
  const text = logs.lines.map((l) => `${criTime(l.time)} ${l.stream ?? "stdout"} F ${l.text}\n`).join("");
  await mkdir(dirname(file), { recursive: true });
  const existed = existsSync(file);
  await appendFile(file, text);
  if (existed) return;
  const spec = {
    logs: [{ ...(logs.containers ? { containers: logs.containers } : {}), logsFile: file, follow: true }],
  };
  const seq = ++podLogsSeq;
  if (logs.pod) {
    await api(server, admin, "POST", `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${logs.namespace}/logs`, {
      apiVersion: "kwok.x-k8s.io/v1alpha1",
      kind: "Logs",
      metadata: { name: logs.pod, namespace: logs.namespace },
      spec,
    });
  } else {
    await api(server, admin, "POST", "/apis/kwok.x-k8s.io/v1alpha1/clusterlogs", {
      apiVersion: "kwok.x-k8s.io/v1alpha1",
      kind: "ClusterLogs",
      metadata: { name: `${logs.namespace}-${seq}` },
      spec: { ...spec, selector: { matchNamespaces: [logs.namespace] } },
    });
  }
}
