/**
 * The manager outside a cluster, as a developer runs it against their kubeconfig: `gitsync-manager run
 * --local-webhook` serves the approval webhook on 127.0.0.1 with a certificate it makes up and registers it
 * as a URL webhook; a real approval (`gitsync approve --yes --wait` as another user) goes through it and
 * the plan rolls out; SIGTERM removes the registration; one left behind by a crash is replaced at the next
 * start. And with ENABLE_WEBHOOKS=false the manager fails closed: hand-written approval annotations (even
 * approved-by) never roll a manual Application out, a rollback request is refused, the start-up log says
 * so, while an Application that syncs automatically still deploys.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { parseAllDocuments } from "yaml";
import { LOCAL_WEBHOOK_CONFIGURATION } from "../../controller/gitsync/approval/local_webhook.ts";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { installCrds, isKubeApiError, KubeClient, listEvents } from "../../internal/k8s/mod.ts";
import { ROOT, runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { bindClusterRole, createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";
import { freePort } from "../harness/ports.ts";
import { untilWithLog } from "../harness/until.ts";
import {
  API_VERSION,
  type Application,
  APPROVED_AT,
  APPROVED_BY,
  APPROVED_DIGEST,
  APPROVED_REVISION,
  type Revision,
  ROLLBACK_REQUESTED_AT,
} from "../../controller/gitsync/api/mod.ts";

const NS = "dev";
const API = `/apis/${API_VERSION}/namespaces/${NS}`;
const LOCAL_CONFIG =
  `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${LOCAL_WEBHOOK_CONFIGURATION}`;
const configMap = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: ${value}\n`;

interface WebhookConfiguration {
  metadata: { uid: string };
  webhooks: { clientConfig: { url?: string; caBundle?: string }; failurePolicy: string }[];
}

describe("gitsync-manager outside a cluster: --local-webhook, and ENABLE_WEBHOOKS=false", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let git: GitHttpServer;
  let repo: GitRepo;
  let dir: string;
  let bobKubeconfig: string;
  let manager: RunningBinary | undefined;

  const get = <T>(path: string) => admin.request<T>({ path });
  const until = untilWithLog(() => manager?.output() ?? "", { ms: 40_000 });
  /** `gitsync-manager run` with the developer's (admin) kubeconfig. */
  const startManager = async (args: string[], env: Record<string, string> = {}) =>
    manager = await startBinary("gitsync-manager", [
      "run",
      "--kubeconfig",
      k8s.kubeconfigPath,
      "--health-probe-bind-address",
      "127.0.0.1:0",
      "--cache-dir",
      dir,
      ...args,
    ], { readyPath: "/readyz", env, timeoutMs: 60_000 });
  const gitsync = (args: string[]) =>
    runBinary("gitsync", [...args, "-n", NS, "--kubeconfig", bobKubeconfig], { timeoutMs: 90_000 });
  const createApplication = (name: string, path: string, automatic = false) =>
    admin.request({
      method: "POST",
      path: `${API}/applications`,
      body: {
        apiVersion: API_VERSION,
        kind: "Application",
        metadata: { name },
        spec: {
          serviceAccountName: "deployer",
          source: { repositoryRef: { name: "app" }, path },
          ...(automatic ? { sync: { automatic: true } } : {}),
        },
      },
    });
  const awaitingApproval = (name: string) =>
    until(`${name} waits for approval`, async () => {
      const app = await get<Application>(`${API}/applications/${name}`);
      const rev = app.status?.desiredRevision
        ? await get<Revision>(`${API}/revisions/${app.status.desiredRevision}`)
        : undefined;
      return rev?.status?.phase === "AwaitingApproval" ? rev : undefined;
    });
  const configMapExists = async (name: string) => {
    try {
      await get(`/api/v1/namespaces/${NS}/configmaps/${name}`);
      return true;
    } catch (err) {
      if (isKubeApiError(err, 404)) return false;
      throw err;
    }
  };

  before(async () => {
    [k8s, git] = await Promise.all([startKubeApiServer(), startGitHttpServer()]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    dir = await mkdtemp(join(tmpdir(), "gitsync-local-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS);
    (await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    ])).close();
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/serviceaccounts`,
      body: { metadata: { name: "deployer" } },
    });
    repo = await git.createRepo("app", {
      "local/cm.yaml": configMap("local-settings", "one"),
      "off/cm.yaml": configMap("off-settings", "one"),
      "auto/cm.yaml": configMap("auto-settings", "one"),
    });
    await admin.request({
      method: "POST",
      path: `${API}/repositories`,
      body: {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name: "app" },
        spec: { git: { url: repo.url }, pollInterval: "2s" },
      },
    });
    // bob approves: the install's gitsync-approver role (deploy/gitsync/roles.yaml) in the namespace.
    for (const doc of parseAllDocuments(await readFile(join(ROOT, "deploy/gitsync/roles.yaml"), "utf8"))) {
      const role = doc.toJS();
      if (role?.kind) {
        await admin.request({
          method: "POST",
          path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
          body: role,
        });
      }
    }
    await bindClusterRole(admin, NS, "gitsync-approver", { kind: "User", name: "bob" });
    bobKubeconfig = await k8s.userKubeconfig("bob");
  });
  after(async () => {
    await manager?.stop();
    admin?.close();
    await Promise.all([k8s?.stop(), git?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  let webhookPort: number;

  it("--local-webhook registers a URL webhook on 127.0.0.1 whose caBundle trusts the certificate served", async () => {
    webhookPort = await freePort();
    await startManager(["--local-webhook", "--webhook-bind-address", `127.0.0.1:${webhookPort}`]);
    const config = await get<WebhookConfiguration>(LOCAL_CONFIG);
    const hook = config.webhooks[0]!;
    assert.equal(
      hook.clientConfig.url,
      `https://127.0.0.1:${webhookPort}/mutate-sync-gitsync-io-v1alpha1-application`,
    );
    assert.equal(hook.failurePolicy, "Fail");
    const ca = new X509Certificate(Buffer.from(hook.clientConfig.caBundle!, "base64"));
    const served = await new Promise<X509Certificate>((resolve, reject) => {
      const s = tlsConnect({ host: "127.0.0.1", port: webhookPort, rejectUnauthorized: false }, () => {
        resolve(new X509Certificate(s.getPeerCertificate().raw));
        s.destroy();
      });
      s.on("error", reject);
    });
    assert.ok(served.verify(ca.publicKey));
    assert.equal(served.checkIP("127.0.0.1"), "127.0.0.1");
  });

  it("a real approval goes through the local webhook: gitsync approve --yes --wait as bob rolls the plan out", async () => {
    await createApplication("local", "local");
    const rev = await awaitingApproval("local");
    assert.equal(await configMapExists("local-settings"), false, "nothing before the approval");
    const r = await gitsync(["approve", "local", "--yes", "--wait", "--timeout", "60s"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Healthy/);
    const a = (await get<Application>(`${API}/applications/local`)).metadata!.annotations!;
    assert.equal(a[APPROVED_BY], "bob", "recorded by the webhook from bob's credentials");
    assert.equal(a[APPROVED_DIGEST], rev.status!.plan!.digest);
    assert.equal(await configMapExists("local-settings"), true);
  });

  it("SIGTERM removes the registration (Applications can be written again); exit 0", async () => {
    assert.equal(await manager!.stop(), 0);
    manager = undefined;
    await assert.rejects(get(LOCAL_CONFIG), (err) => isKubeApiError(err, 404));
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/local`,
      contentType: "application/merge-patch+json",
      body: { metadata: { labels: { team: "web" } } },
    });
  });

  it("a registration left behind by a crash blocks writes until the next start replaces it", async () => {
    await startManager(["--local-webhook", "--webhook-bind-address", `127.0.0.1:${webhookPort}`]);
    const first = await get<WebhookConfiguration>(LOCAL_CONFIG);
    assert.equal(await manager!.stop("SIGKILL"), null);
    manager = undefined;
    await assert.rejects(
      admin.request({
        method: "PATCH",
        path: `${API}/applications/local`,
        contentType: "application/merge-patch+json",
        body: { metadata: { labels: { team: "ops" } } },
      }),
      /failed calling webhook "approval.sync.gitsync.io"/,
      "fails closed while nobody answers",
    );
    const port = await freePort();
    await startManager(["--local-webhook", "--webhook-bind-address", `127.0.0.1:${port}`]);
    const second = await get<WebhookConfiguration>(LOCAL_CONFIG);
    assert.equal(second.webhooks.length, 1);
    assert.equal(
      second.webhooks[0]!.clientConfig.url,
      `https://127.0.0.1:${port}/mutate-sync-gitsync-io-v1alpha1-application`,
    );
    assert.notEqual(second.webhooks[0]!.clientConfig.caBundle, first.webhooks[0]!.clientConfig.caBundle);
    await until("writes go through again", () =>
      admin.request({
        method: "PATCH",
        path: `${API}/applications/local`,
        contentType: "application/merge-patch+json",
        body: { metadata: { labels: { team: "ops" } } },
      }).then(() => true));
    assert.equal(await manager!.stop(), 0);
    manager = undefined;
    await assert.rejects(get(LOCAL_CONFIG), (err) => isKubeApiError(err, 404));
  });

  it("ENABLE_WEBHOOKS=false: the start-up log says approvals are ignored; hand-written approvals never roll out", async () => {
    await startManager([], { ENABLE_WEBHOOKS: "false" });
    const warning = manager!.records().find((r) => r.level === "warn" && /ENABLE_WEBHOOKS=false/.test(r.msg));
    assert.ok(warning, manager!.output());
    assert.match(warning.msg, /approvals are ignored/);
    assert.match(warning.msg, /never roll out/);

    await createApplication("off", "off");
    const rev = await awaitingApproval("off");
    // Without a webhook anyone who may update the Application can write every approval annotation.
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/off`,
      contentType: "application/merge-patch+json",
      body: {
        metadata: {
          annotations: {
            [APPROVED_REVISION]: rev.metadata!.name!,
            [APPROVED_BY]: "alice",
            [APPROVED_AT]: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
            [APPROVED_DIGEST]: rev.status!.plan!.digest,
          },
        },
      },
    });
    // An Application that syncs automatically deploys meanwhile: the manager is reconciling.
    await createApplication("auto", "auto", true);
    await until("auto deployed", async () => (await configMapExists("auto-settings")) || undefined);
    await until(
      "the Revision says approvals are off",
      async () => (await listEvents(admin, rev)).some((e) => e.reason === "ApprovalsDisabled") || undefined,
    );
    const still = await get<Revision>(`${API}/revisions/${rev.metadata!.name}`);
    assert.equal(still.status?.phase, "AwaitingApproval");
    assert.equal(still.status?.approval ?? undefined, undefined);
    assert.equal(await configMapExists("off-settings"), false, "never rolled out");

    // gitsync approve says it cannot be approved and takes its request back.
    const r = await gitsync(["approve", "off", "--yes"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /webhook did not record the approval/);
  });

  it("ENABLE_WEBHOOKS=false: a rollback request of a manual Application is refused", async () => {
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/local`,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [ROLLBACK_REQUESTED_AT]: new Date().toISOString() } } },
    });
    const app = await until("the rollback is refused", async () => {
      const a = await get<Application>(`${API}/applications/local`);
      return a.status?.rollback?.message ? a : undefined;
    });
    assert.match(app.status!.rollback!.message!, /approvals are off/);
    assert.equal(app.status!.rollback!.revision, undefined);
    await until(
      "Event RollbackFailed",
      async () => (await listEvents(admin, app)).some((e) => e.reason === "RollbackFailed") || undefined,
    );
    assert.equal(await manager!.stop(), 0);
    manager = undefined;
  });

  it("usage errors: --local-webhook with ENABLE_WEBHOOKS=false, or with another certificate source", async () => {
    const off = await runBinary("gitsync-manager", ["run", "--local-webhook"], {
      env: { ENABLE_WEBHOOKS: "false" },
    });
    assert.equal(off.code, 2);
    assert.match(off.stderr, /--local-webhook .*ENABLE_WEBHOOKS=false/);
    const both = await runBinary("gitsync-manager", ["run", "--local-webhook", "--webhook-cert-secret", "x"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /choose one webhook certificate source/);
    const none = await runBinary("gitsync-manager", ["run", "--kubeconfig", k8s.kubeconfigPath]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--webhook-cert-secret .*--local-webhook/s);
    const help = await runBinary("gitsync-manager", ["run", "--help"]);
    for (
      const flag of ["--local-webhook", "--webhook-cert-secret", "--enable-http2", "--webhook-cert-validity"]
    ) {
      assert.ok(help.stdout.includes(flag), `${flag} in run --help`);
    }
  });
});
