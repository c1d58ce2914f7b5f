/**
 * A throwaway Kubernetes API (kube-apiserver + etcd) for integration tests. Binaries come from the
 * cache that scripts/k8s/build.ts fills (`deno task k8s:build`); this module never builds, because a
 * cold build takes many minutes. Everything listens on free loopback ports, with certificates
 * generated per start (openssl), RBAC authorization and an admin (system:masters) client certificate.
 *
 *   const k8s = await startKubeApiServer();
 *   // KUBECONFIG=k8s.kubeconfigPath, or new KubeConfig().loadFromFile(k8s.kubeconfigPath)
 *   await k8s.stop();
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../internal/http/free_port.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { ETCD, KUBE_APISERVER } from "../../scripts/testenv/servers.ts";

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
  /**
   * Writes a kubeconfig for another user: a client certificate signed by the cluster CA with
   * CN=`user` and O=each of `groups`. Without RBAC bindings such a user is refused (Forbidden).
   */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** Stops kube-apiserver and etcd and deletes their files. Safe to call twice. */
  stop(): Promise<void>;
}

export interface KubeBinaries {
  kubeApiServer: string;
  etcd: string;
}

/**
 * The binaries to run: K8S_TEST_KUBE_APISERVER / K8S_TEST_ETCD when set, else the cached builds;
 * for etcd the cached etcd 3.5 build when there is one, else Debian's /usr/bin/etcd (3.4.23).
 * Undefined when kube-apiserver is not available.
 */
export function kubeBinaries(): KubeBinaries | undefined {
  const kubeApiServer = process.env.K8S_TEST_KUBE_APISERVER || cachedBinary(KUBE_APISERVER);
  const etcd = process.env.K8S_TEST_ETCD || cachedBinary(ETCD) ||
    (existsSync("/usr/bin/etcd") ? "/usr/bin/etcd" : undefined);
  return kubeApiServer && etcd ? { kubeApiServer, etcd } : undefined;
}

/** True when startKubeApiServer() can run; tests use it to skip with a reason. */
export function kubeApiServerAvailable(): boolean {
  return kubeBinaries() !== undefined;
}

/**
 * The `skip` option for tests that need kube-apiserver: a reason to skip when it is not built, except
 * in CI (CI=true), where .ci/run builds it first, so a missing binary must fail the tests instead.
 *
 *   describe("apply", { skip: kubeApiServerSkip() }, () => { ... });
 */
export function kubeApiServerSkip(): string | false {
  if (kubeApiServerAvailable() || process.env.CI === "true") return false;
  return `kube-apiserver ${KUBE_APISERVER.version} not built: run \`deno task k8s:build\``;
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

function startProcess(bin: string, args: string[], logFile: string): ChildProcess {
  const out = openSync(logFile, "a");
  return spawn(bin, args, { stdio: ["ignore", out, out] });
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
  /** Readiness timeout for both servers; default 60 s. */
  timeoutMs?: number;
  /** Keep the temp dir (logs, certificates) after stop(); default false. */
  keepFiles?: boolean;
}

export async function startKubeApiServer(options: StartOptions = {}): Promise<KubeApiServer> {
  const started = performance.now();
  const bins = options.binaries ?? kubeBinaries();
  if (!bins) {
    throw new Error(
      `kube-apiserver ${KUBE_APISERVER.version} is not built: run \`deno task k8s:build\`` +
        " (or set K8S_TEST_KUBE_APISERVER and K8S_TEST_ETCD)",
    );
  }
  const timeoutMs = options.timeoutMs ?? 60_000;
  const dir = await mkdtemp(join(tmpdir(), "k8s-test-"));
  let etcd: ChildProcess | undefined;
  let apiserver: ChildProcess | undefined;
  let stopped = false;
  const onExit = () => {
    apiserver?.kill("SIGKILL");
    etcd?.kill("SIGKILL");
  };
  process.once("exit", onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", onExit);
    await stopProcess(apiserver);
    await stopProcess(etcd);
    if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
  };
  const exitedMessage = (child: ChildProcess | undefined, name: string, log: string) =>
    child && (child.exitCode !== null || child.signalCode !== null)
      ? `${name} exited (${child.signalCode ?? `exit ${child.exitCode}`}); last lines of ${log}:\n${
        tail(log)
      }`
      : undefined;
  try {
    const [, clientPort, peerPort, securePort] = await Promise.all([
      generatePki(dir),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcdLog = join(dir, "etcd.log");
    etcd = startProcess(bins.etcd, [
      "--name=default",
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      "--logger=zap",
      "--log-level=warn",
    ], etcdLog);
    await waitUntil(
      "etcd",
      async () => (await fetch(`${etcdUrl}/health`)).ok,
      () => exitedMessage(etcd, "etcd", etcdLog),
      timeoutMs,
    );

    const server = `https://127.0.0.1:${securePort}`;
    const f = (name: string) => join(dir, name);
    const apiLog = join(dir, "kube-apiserver.log");
    apiserver = startProcess(bins.kubeApiServer, [
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
    ], apiLog);
    const [ca, cert, key] = await Promise.all(
      ["ca.crt", "admin.crt", "admin.key"].map((n) => readFile(f(n), "utf8")),
    );
    await waitUntil(
      "kube-apiserver",
      async () => (await get(`${server}/readyz`, { ca: ca!, cert, key })).status === 200,
      () => exitedMessage(apiserver, "kube-apiserver", apiLog),
      timeoutMs,
    );
    const kubeconfigPath = f("kubeconfig");
    await writeFile(kubeconfigPath, kubeconfig(server, ca!, cert!, key!), { mode: 0o600 });
    return {
      kubeconfigPath,
      server,
      caFile: f("ca.crt"),
      clientCertFile: f("admin.crt"),
      clientKeyFile: f("admin.key"),
      startupMs: performance.now() - started,
      userKubeconfig: async (user: string, groups: string[] = []) => {
        const { cert: userCert, key: userKey } = await issueClientCert(dir, user, groups);
        const path = f(`kubeconfig-${Buffer.from(user).toString("hex")}`);
        await writeFile(path, kubeconfig(server, ca!, userCert, userKey), { mode: 0o600 });
        return path;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
