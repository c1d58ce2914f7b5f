/**
 * deploy/gitsync/install.yaml on a cluster without cert-manager, as a user applies it: `kubectl apply`
 * succeeds (nothing in it needs a kind the cluster lacks); until a manager replica serves the webhook no
 * Application can be written (fail closed); the compiled manager, run as the install's service account with
 * the Deployment's own arguments, issues its CA and certificate into the Secret and the CA into the
 * webhook configuration's caBundle, and the API server's calls to the webhook Service then verify and
 * approvals are recorded. A second replica serves the same certificate and writes nothing; --enable-http2
 * is honoured by the webhook and metrics servers; short validities make the certificate and the CA rotate
 * while every Application write keeps going through the webhook.
 *
 * kwok's Pods run no processes, so each replica runs as a local process in a Pod's place, and the test
 * points the webhook Service at it: an ExternalName Service for 127.0.0.1 and the configuration's service
 * port set to the replica's (the API server still verifies the certificate for
 * gitsync-webhook.gitsync-system.svc, as it does in a cluster).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { issueCa, issueServing } from "../../controller/gitsync/approval/x509.ts";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { installCrds, KubeClient, type KubeObject } from "../../internal/k8s/mod.ts";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { bindClusterRole, serviceAccountToken, writeTokenKubeconfig } from "../harness/k8s_fixtures.ts";
import { freePort } from "../harness/ports.ts";
import { until } from "../harness/until.ts";
import { API_VERSION, APPROVED_BY, APPROVED_DIGEST } from "../../controller/gitsync/api/mod.ts";

const SYSTEM = "gitsync-system";
const NS = "team";
const APPS = `/apis/${API_VERSION}/namespaces/${NS}/applications`;
const SECRET = `/api/v1/namespaces/${SYSTEM}/secrets/gitsync-webhook-cert`;
const CONFIG = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gitsync-approval";
const PLAN = "sha256:" + "2".repeat(64);
const INSTALL = join(ROOT, "deploy/gitsync/install.yaml");

interface Secret {
  metadata: { resourceVersion: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}
const field = (s: Secret, key: string) =>
  s.data?.[key] === undefined ? undefined : Buffer.from(s.data[key]!, "base64").toString("utf8");

async function run(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(cmd, args);
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, out: (e.stdout ?? "") + (e.stderr ?? "") };
  }
}

/** The ALPN protocol a client offering h2 and http/1.1 gets, and the certificate served. */
function handshake(port: number): Promise<{ alpn: string | false; cert: string }> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect(
      { host: "127.0.0.1", port, rejectUnauthorized: false, ALPNProtocols: ["h2", "http/1.1"] },
      () => {
        const raw = s.getPeerCertificate().raw;
        resolve({ alpn: s.alpnProtocol ?? false, cert: new X509Certificate(raw).toString() });
        s.destroy();
      },
    );
    s.on("error", reject);
  });
}

describe("install.yaml on a cluster without cert-manager: the manager's own webhook certificate", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let bob: KubeClient;
  let dir: string;
  let managerKubeconfig: string;
  let webhookPort: number;
  const replicas: RunningBinary[] = [];
  const secret = () => admin.request<Secret>({ path: SECRET });
  const caBundle = async () =>
    Buffer.from(
      (await admin.request<{ webhooks: { clientConfig: { caBundle?: string } }[] }>({ path: CONFIG }))
        .webhooks[0]!.clientConfig.caBundle ?? "",
      "base64",
    ).toString("utf8");

  const replicaLogs = () => replicas.map((r) => r.output().split("\n").slice(-15).join("\n")).join("\n---\n");

  const application = (spec: Record<string, unknown>) => ({
    apiVersion: API_VERSION,
    kind: "Application",
    metadata: { name: "web" },
    spec: { ...spec, source: { repositoryRef: { name: "web" }, path: "deploy" } },
  });

  /** A replica as the install's Deployment runs it (its args), as a process in the Pod's place. */
  async function replica(port: number, extra: string[] = []): Promise<RunningBinary> {
    const objects = parseAllDocuments(await readFile(INSTALL, "utf8")).map((d) => d.toJS() as KubeObject);
    // deno-lint-ignore no-explicit-any
    const deployment = objects.find((o) => o?.kind === "Deployment") as any;
    const args: string[] = deployment.spec.template.spec.containers[0].args;
    const r = await startBinary("gitsync-manager", [
      ...args,
      "--kubeconfig",
      managerKubeconfig,
      "--health-probe-bind-address",
      "127.0.0.1:0",
      "--webhook-bind-address",
      `127.0.0.1:${port}`,
      "--cache-dir",
      dir,
      ...extra,
    ], { readyPath: "/readyz", env: { POD_NAMESPACE: SYSTEM }, timeoutMs: 60_000 });
    replicas.push(r);
    return r;
  }

  /** Any Application write goes through the webhook: a forged approved-by in it is undone. */
  async function writeThroughWebhook(i: number): Promise<void> {
    const after = await admin.request<{ metadata: { annotations?: Record<string, string> } }>({
      method: "PATCH",
      path: `${APPS}/web`,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { "example.com/touch": String(i), [APPROVED_BY]: `forged-${i}` } } },
    });
    assert.notEqual(after.metadata.annotations?.[APPROVED_BY], `forged-${i}`, "the webhook ran");
  }

  before(async () => {
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    dir = await mkdtemp(join(tmpdir(), "gitsync-install-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    webhookPort = await freePort();
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    bob?.close();
    admin?.close();
    await k8s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("kubectl apply -f install.yaml succeeds; until a replica serves the webhook, no Application can be written", async () => {
    const r = await run("kubectl", ["--kubeconfig", k8s.kubeconfigPath, "apply", "-f", INSTALL]);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, /error|unable to recognize/i);
    assert.equal((await secret()).data, undefined, "the Secret starts empty");
    assert.equal(await caBundle(), "");
    await admin.request({ method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: NS } } });
    await assert.rejects(
      admin.request({ method: "POST", path: APPS, body: application({}) }),
      /failed calling webhook "approval.sync.gitsync.io"/,
    );
  });

  it("a replica with the Deployment's arguments issues its certificate into the Secret and the CA into the caBundle", async () => {
    // Route the webhook Service to the replica's port on 127.0.0.1 (see the file comment).
    await admin.request({ method: "DELETE", path: `/api/v1/namespaces/${SYSTEM}/services/gitsync-webhook` });
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${SYSTEM}/services`,
      body: {
        metadata: { name: "gitsync-webhook" },
        spec: { type: "ExternalName", externalName: "localhost" },
      },
    });
    await admin.request({
      method: "PATCH",
      path: CONFIG,
      contentType: "application/json-patch+json",
      body: [{ op: "replace", path: "/webhooks/0/clientConfig/service/port", value: webhookPort }],
    });
    const token = await serviceAccountToken(admin, SYSTEM, "gitsync-manager");
    managerKubeconfig = await writeTokenKubeconfig(join(dir, "manager.kubeconfig"), k8s, token);

    const leader = await replica(webhookPort);
    const s = await secret();
    const ca = new X509Certificate(field(s, "ca.crt")!);
    const leaf = new X509Certificate(field(s, "tls.crt")!);
    assert.ok(ca.ca && leaf.verify(ca.publicKey));
    assert.equal(leaf.checkHost("gitsync-webhook.gitsync-system.svc"), "gitsync-webhook.gitsync-system.svc");
    assert.ok(Date.parse(leaf.validTo) - Date.now() > 364 * 24 * 3600_000, "a year, the chart's default");
    assert.equal(await caBundle(), field(s, "ca.crt"));
    assert.equal((await handshake(webhookPort)).cert, leaf.toString(), "it serves what the Secret holds");
    assert.ok(leader.records().some((r) => r.msg === "webhook certificate issued"));
    assert.ok(!leader.output().includes("BEGIN"), "no key or certificate in the logs");
  });

  it("approvals go through the API server's call to the webhook Service, which verifies the certificate", async () => {
    await admin.request({ method: "POST", path: APPS, body: application({ suspend: true }) });
    const revisions = `/apis/${API_VERSION}/namespaces/${NS}/revisions`;
    await admin.request({
      method: "POST",
      path: revisions,
      body: {
        apiVersion: API_VERSION,
        kind: "Revision",
        metadata: { name: "web-1" },
        spec: { applicationRef: { name: "web" }, sourceRevision: "abc123", serviceAccountName: "deployer" },
      },
    });
    await admin.request({
      method: "PATCH",
      path: `${revisions}/web-1/status`,
      contentType: "application/merge-patch+json",
      body: { status: { phase: "AwaitingApproval", plan: { digest: PLAN } } },
    });
    // The (suspended) Application wants it, as its reconciler would have written.
    await admin.request({
      method: "PATCH",
      path: `${APPS}/web/status`,
      contentType: "application/merge-patch+json",
      body: { status: { desiredRevision: "web-1" } },
    });
    // bob holds the install's gitsync-approver role in the namespace.
    await bindClusterRole(admin, NS, "gitsync-approver", { kind: "User", name: "bob" });
    bob = KubeClient.fromKubeconfig({ path: await k8s.userKubeconfig("bob") });
    // Refused (no plan to approve) until the replica's cache has the Revision's status.
    const approved = await until(
      "bob's approval is recorded",
      () =>
        bob.request<{ metadata: { annotations: Record<string, string> } }>({
          method: "PATCH",
          path: `${APPS}/web`,
          contentType: "application/merge-patch+json",
          body: {
            metadata: {
              annotations: {
                "sync.gitsync.io/approved-revision": "web-1",
                "sync.gitsync.io/approve-digest": PLAN,
              },
            },
          },
        }),
      { context: replicaLogs },
    );
    assert.equal(approved.metadata.annotations[APPROVED_BY], "bob");
    assert.equal(approved.metadata.annotations[APPROVED_DIGEST], PLAN);
    await writeThroughWebhook(0);
  });

  it("a second replica serves the same certificate from the Secret and writes nothing; --enable-http2 is honoured", async () => {
    const metricsDir = join(dir, "metrics");
    const metricsCa = await issueCa({ notAfter: new Date(Date.now() + 3600_000) });
    const metricsCert = await issueServing(metricsCa, {
      ipAddresses: ["127.0.0.1"],
      notAfter: new Date(Date.now() + 3600_000),
    });
    await mkdir(metricsDir, { recursive: true });
    await writeFile(join(metricsDir, "tls.crt"), metricsCert.cert);
    await writeFile(join(metricsDir, "tls.key"), metricsCert.key);
    const before = await secret();
    const standbyPort = await freePort();
    const standby = await replica(standbyPort, [
      "--enable-http2",
      "--metrics-bind-address",
      "127.0.0.1:0",
      "--metrics-cert-path",
      metricsDir,
    ]);
    const served = await handshake(standbyPort);
    assert.equal(served.cert, new X509Certificate(field(before, "tls.crt")!).toString());
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(
      (await secret()).metadata.resourceVersion,
      before.metadata.resourceVersion,
      "nobody rewrote it",
    );
    assert.ok(!standby.records().some((r) => r.msg === "webhook certificate issued"));
    assert.ok(!standby.records().some((r) => r.msg === "leading"), "the first replica leads");

    // HTTP/2 only where the flag is on: the standby's webhook and metrics; the leader's webhook is HTTP/1.1.
    const metricsPort = standby.records().find((r) => r.msg === "listening")!.metricsPort as number;
    assert.equal(served.alpn, "h2");
    assert.equal((await handshake(metricsPort)).alpn, "h2");
    assert.equal((await handshake(webhookPort)).alpn, "http/1.1");
  });

  it("short validities: the certificate and the CA are renewed, replicas follow, and every write still goes through the webhook", async () => {
    // Every replica stops; one with short validities (the flags override the Deployment's) takes the Lease.
    for (const r of replicas.splice(0)) assert.equal(await r.stop(), 0);
    const rotating = await replica(webhookPort, ["--webhook-cert-validity=3s", "--webhook-ca-validity=9s"]);
    const seen = { leaves: new Set<string>(), cas: new Set<string>(), twoCas: false };
    let writes = 0;
    const deadline = Date.now() + 14_000;
    while (Date.now() < deadline) {
      await writeThroughWebhook(++writes);
      const s = await secret();
      seen.leaves.add(field(s, "tls.crt")!);
      seen.cas.add(field(s, "ca.crt")!);
      if (field(s, "ca-previous.crt")) {
        seen.twoCas = true;
        assert.ok(s.metadata.annotations?.["sync.gitsync.io/ca-previous-until"]);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.ok(seen.leaves.size >= 4, `certificates seen: ${seen.leaves.size}`);
    assert.ok(seen.cas.size >= 2, `CAs seen: ${seen.cas.size}`);
    assert.ok(seen.twoCas, "a new CA was trusted next to the previous one");
    assert.ok(writes > 20, `writes: ${writes}`);
    // The bundle holds at most the current and the previous CA, and the replica serves the current certificate.
    const s = await secret();
    const bundle = await caBundle();
    assert.ok(bundle.startsWith(field(s, "ca.crt")!));
    assert.ok((bundle.match(/BEGIN CERTIFICATE/g) ?? []).length <= 2);
    await until(
      "the replica serves the Secret's certificate",
      async () =>
        (await handshake(webhookPort)).cert ===
            new X509Certificate(field(await secret(), "tls.crt")!).toString()
          ? true
          : undefined,
      { context: replicaLogs },
    );
    assert.ok(rotating.records().filter((r) => r.msg === "webhook certificate issued").length >= 3);
  });
});
