/**
 * The controller as users run it: the compiled `gitsync-manager run` on a cluster with workloads and
 * a real Git server, as the service account of deploy/gitsync/install.yaml with exactly the RBAC that
 * manifest grants (it cannot change managed resources itself), its approval webhook registered with
 * the API server, leader election and a second replica standing by. People use the compiled `gitsync`
 * CLI as another user bound to the manifest's gitsync-approver role: plan, approve, history. A commit becomes a Revision whose plan waits for approval with nothing applied;
 * once approved it rolls out (pre-sync hook, waves) to Healthy; a commit whose migration fails ends in
 * HookFailed with the deployed Revision unchanged; an Application that syncs automatically deploys
 * without approval; one without a service account is refused; SIGTERM stops the manager cleanly.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createHmac } from "node:crypto";
import { generateIdentity, identityToRecipient } from "age-encryption";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { freePort } from "../harness/ports.ts";
import { installCrds, KubeClient, listEvents } from "../../internal/k8s/mod.ts";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, POD_OUTCOME_ANNOTATION, startKubeApiServer } from "../harness/k8s.ts";
import {
  bindClusterRole,
  createNamespace,
  serviceAccountToken,
  serviceAccountWithRole,
} from "../harness/k8s_fixtures.ts";
import { installControllerRbac } from "./install_fixture.ts";
import { startRegistry } from "../harness/registry.ts";
import { servingCertificate } from "../harness/serving_cert.ts";
import { sopsEncrypt } from "../harness/sops.ts";
import { registerApprovalWebhook } from "./approval_webhook_fixture.ts";
import { untilWithLog } from "../harness/until.ts";
import {
  API_VERSION,
  type Application,
  type Repository,
  type Revision,
} from "../../controller/gitsync/api/mod.ts";

const NS = "shop";
const API = `/apis/${API_VERSION}/namespaces/${NS}`;

const files = (failMigration = false) => ({
  "notified/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notified\ndata:\n  a: b\n",
  "crasher/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: crasher
spec:
  replicas: 1
  selector: {matchLabels: {app: crasher}}
  template:
    metadata: {labels: {app: crasher}, annotations: {"${POD_OUTCOME_ANNOTATION}": crashloop}}
    spec: {containers: [{name: app, image: "registry.example/crasher:1"}]}
`,
  "crasher/service.yaml":
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: crasher\nspec:\n  selector: {app: crasher}\n  ports: [{port: 80}]\n",
  "crasher/claims.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: claims
spec:
  replicas: 1
  selector: {matchLabels: {app: claims}}
  template:
    metadata: {labels: {app: claims}}
    spec:
      containers: [{name: app, image: "registry.example/claims:1"}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`,
  "crasher/secret-user.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: secret-user
spec:
  replicas: 1
  selector: {matchLabels: {app: secret-user}}
  template:
    metadata:
      labels: {app: secret-user}
      annotations: {"${POD_OUTCOME_ANNOTATION}": config-error, "sim.toolkit.test/missing-secret": api-token}
    spec:
      containers:
        - name: app
          image: "registry.example/secret-user:1"
          env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: api-token, key: token}}}]
`,
  "crasher/pinned.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: pinned
spec:
  replicas: 1
  selector: {matchLabels: {app: pinned}}
  template:
    metadata: {labels: {app: pinned}}
    spec:
      nodeSelector: {zone: nowhere}
      containers: [{name: app, image: "registry.example/pinned:1"}]
`,
  "forbidden/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: not-mine\nstringData:\n  k: v\n",
  "conflict/cm.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned-elsewhere\ndata:\n  mode: gitsync\n",
  "limited/notes.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: limited-notes\ndata:\n  a: b\n",
  "auto/settings.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: auto-settings\ndata:\n  mode: auto\n",
  "deploy/settings.yaml":
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  annotations:\n    sync.gitsync.io/sync-wave: "-1"\ndata:\n  mode: live\n',
  "deploy/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "registry.example/web:1"}]}
`,
  "deploy/migrate.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    sync.gitsync.io/hook: pre-sync
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations: {${failMigration ? `"${POD_OUTCOME_ANNOTATION}": fail` : ""}}
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: "registry.example/web:1"}]
`,
});

describe("gitsync engine: Repository → Application → Revision", () => {
  let k8s: KubeApiServer;
  let admin: KubeClient;
  let git: GitHttpServer;
  let repo: GitRepo;
  let cacheRoot: string;
  let manager: RunningBinary;
  let standby: RunningBinary;
  let controllerKubeconfig: string;
  let bobKubeconfig: string;

  const get = <T>(path: string) => admin.request<T>({ path });
  const until = untilWithLog(() => manager.output(), { ms: 40_000 });
  const app = () => get<Application>(`${API}/applications/shop`);
  const revision = (name: string) => get<Revision>(`${API}/revisions/${name}`);
  /** `gitsync <args> -n shop` as bob, who holds gitsync-approver in the namespace. */
  const gitsync = (args: string[]) =>
    runBinary("gitsync", [...args, "-n", NS, "--kubeconfig", bobKubeconfig], { timeoutMs: 60_000 });

  const untilDeployed = (name: string) =>
    until(`${name} deployed`, async () => {
      const x = await get<Application>(`${API}/applications/${name}`);
      return x.status?.deployedRevision ? x : undefined;
    });

  const createRepository = (name: string, spec: Record<string, unknown>) =>
    admin.request({
      method: "POST",
      path: `${API}/repositories`,
      body: { apiVersion: API_VERSION, kind: "Repository", metadata: { name }, spec },
    });

  const createApplication = (name: string, spec: Record<string, unknown>) =>
    admin.request({
      method: "POST",
      path: `${API}/applications`,
      body: { apiVersion: API_VERSION, kind: "Application", metadata: { name }, spec },
    });

  const tokenOf = (namespace: string, name: string) => serviceAccountToken(admin, namespace, name);

  /** GET https://127.0.0.1:<metrics port>/metrics, trusting the test certificate. */
  const scrape = (port: number, token?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest({
        host: "127.0.0.1",
        port,
        path: "/metrics",
        ca: readFileSync(join(cacheRoot, "tls.crt")),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
      req.end();
    });

  const leads = (m: RunningBinary) => m.records().some((r) => r.msg === "leading");

  before(async () => {
    [k8s, git] = await Promise.all([
      startKubeApiServer({ workloads: true }),
      startGitHttpServer({ ssh: true, anonymousPush: true }),
    ]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-engine-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS, { forPods: true });
    (await serviceAccountWithRole(admin, NS, "deployer", [
      {
        apiGroups: ["", "apps", "batch"],
        resources: ["configmaps", "deployments", "jobs", "services"],
        verbs: ["*"],
      },
      // Read access below the workloads, for the diagnosis (without it the diagnosis is shallower).
      {
        apiGroups: ["", "apps", "discovery.k8s.io"],
        resources: ["pods", "replicasets", "endpointslices", "persistentvolumeclaims", "secrets"],
        verbs: ["get", "list"],
      },
    ])).close();
    repo = await git.createRepo("shop", files());

    controllerKubeconfig = await installControllerRbac(admin, k8s, join(cacheRoot, "controller.kubeconfig"));
    bobKubeconfig = await k8s.userKubeconfig("bob");
    await bindClusterRole(admin, NS, "gitsync-approver", { kind: "User", name: "bob" });
    // The webhook's serving certificate for 127.0.0.1, trusted by the API server through caBundle.
    const cert = await servingCertificate(cacheRoot, "gitsync-webhook");
    const run = async () =>
      startBinary("gitsync-manager", [
        "run",
        "--kubeconfig",
        controllerKubeconfig,
        "--leader-elect",
        "--leader-election-namespace",
        "gitsync-system",
        "--health-probe-bind-address",
        "127.0.0.1:0",
        "--webhook-bind-address",
        `127.0.0.1:${await freePort()}`,
        "--webhook-cert-path",
        cacheRoot,
        "--cache-dir",
        cacheRoot,
        "--drift-resync-interval",
        "1h", // drift on watched kinds is found at once; nothing here waits for the resync
        "--metrics-bind-address",
        "127.0.0.1:0",
        "--webhook-receiver-bind-address",
        "127.0.0.1:0",
        "--metrics-cert-path",
        cacheRoot,
      ], { readyPath: "/readyz" });
    manager = await run();
    await until("the first replica leads", () => Promise.resolve(leads(manager) || undefined));
    standby = await run();
    // The first replica's webhook decides approvals (failurePolicy Fail, as in install.yaml).
    const webhookPort = manager.records().find((r) => r.msg === "listening")!.webhookPort as number;
    await registerApprovalWebhook(admin, webhookPort, cert.certFile);

    await createRepository("shop", { git: { url: repo.url }, pollInterval: "2s" });
    await createApplication("shop", {
      serviceAccountName: "deployer",
      source: { repositoryRef: { name: "shop" }, path: "deploy" },
    });
  });
  after(async () => {
    await Promise.all([manager?.stop(), standby?.stop()]);
    admin?.close();
    await Promise.all([k8s?.stop(), git?.stop()]);
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  let first: Revision;

  it("a commit becomes a Revision whose plan waits for approval, with nothing applied", async () => {
    first = await until("AwaitingApproval", async () => {
      const name = (await app()).status?.desiredRevision;
      const rev = name ? await revision(name) : undefined;
      return rev?.status?.phase === "AwaitingApproval" ? rev : undefined;
    });
    const plan = first.status!.plan!;
    assert.match(plan.digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(plan.entries.map((e) => `${e.action} ${e.kind}/${e.name}`), [
      "create ConfigMap/settings",
      "create Deployment/web",
      "create Job/migrate",
    ]);
    await assert.rejects(get(`/apis/apps/v1/namespaces/${NS}/deployments/web`), /NotFound/);
    // What bob sees before approving: the same plan, its digest, a diff per object.
    const shown = await gitsync(["plan", "shop"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^Plan ${plan.digest}$`, "m"));
    assert.match(shown.stdout, /^ {2}3 to create, 0 to update, 0 unchanged, 0 to prune$/m);
    assert.match(shown.stdout, /^ {2}create +Deployment\/shop\/web$/m);
    assert.match(shown.stdout, /^\+\+\+ desired\/Deployment\/web/m);
    const events = await listEvents(admin, { ...first, apiVersion: API_VERSION, kind: "Revision" });
    assert.ok(
      events.some((e) => e.reason === "AwaitingApproval"),
      JSON.stringify(events.map((e) => e.reason)),
    );
  });

  it("once approved it rolls out (hook, then waves) to Healthy, and the Application reports it deployed", async () => {
    // A digest other than the plan's is refused, and nothing is approved.
    const stale = await gitsync(["approve", "shop", "--digest", `sha256:${"0".repeat(64)}`]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /the plan of Revision shop-\w+ is now sha256:\w+, not sha256:0+/);
    const approved = await gitsync(["approve", "shop", "--digest", first.status!.plan!.digest, "-o", "json"]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).approvedBy, "bob");
    const done = await until("Healthy", async () => {
      const rev = await revision(first.metadata!.name!);
      if (rev.status?.phase === "Failed") throw new Error(JSON.stringify(rev.status.failure));
      return rev.status?.phase === "Healthy" ? rev : undefined;
    });
    assert.equal(done.status!.approval!.approvedBy, "bob");
    assert.equal(done.status!.approval!.planDigest, first.status!.plan!.digest);
    assert.deepEqual(done.status!.hooks!.map((h) => `${h.stage} ${h.name} ${h.state}`), [
      "pre-sync migrate Succeeded",
    ]);
    assert.equal(done.status!.conditions!.find((c) => c.type === "RolloutComplete")?.status, "True");
    const web = await get<{ status: { availableReplicas: number } }>(
      `/apis/apps/v1/namespaces/${NS}/deployments/web`,
    );
    assert.equal(web.status.availableReplicas, 2);
    const a = await app();
    assert.equal(a.status?.deployedRevision, first.metadata!.name);
    assert.equal(a.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");

    // The live graph, read with the admin's credentials: Deployment → ReplicaSet → two Pods, all Healthy.
    const graph = await runBinary("gitsync", ["graph", "shop", "-n", NS, "--kubeconfig", k8s.kubeconfigPath]);
    assert.equal(graph.code, 0, graph.stderr);
    assert.match(graph.stdout, /^├── Deployment\/web {2}Healthy$/m);
    assert.match(graph.stdout, /^│ {3}└── ReplicaSet\/web-\w+ {2}Healthy$/m);
    assert.equal(graph.stdout.match(/^│ {7}[├└]── Pod\/web-\w+-\w+ {2}Healthy$/gm)?.length, 2, graph.stdout);
    const dot = await runBinary("gitsync", [
      "graph",
      "shop",
      "-n",
      NS,
      "--kubeconfig",
      k8s.kubeconfigPath,
      "-o",
      "dot",
    ]);
    assert.match(dot.stdout, /^digraph "shop\/shop" \{/);
    assert.match(dot.stdout, /"Deployment\/shop\/web" -> "ReplicaSet\/shop\/web-\w+";/);
    // bob may read gitsync's objects but not Deployments or Pods: the graph says so instead of guessing.
    const limited = await gitsync(["graph", "shop"]);
    assert.equal(limited.code, 0, limited.stderr);
    assert.match(limited.stdout, /\(not shown: you may not list .*Deployment/);
  });

  it("gitsync get, revision and logs show the deployment as bob sees it; approve without a terminal needs --yes", async () => {
    const name = first.metadata!.name!;
    const got = await gitsync(["get", "shop"]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /^Sync: +on approval$/m);
    assert.match(got.stdout, new RegExp(`^Deployed: +${name}, Healthy, commit [0-9a-f]{12}$`, "m"));
    assert.match(got.stdout, /^ {2}Ready=True RolloutComplete/m);
    const asYaml = await gitsync(["status", "shop", "-o", "yaml"]);
    assert.match(asYaml.stdout, /^kind: Application$/m);
    assert.doesNotMatch(asYaml.stdout, /managedFields/);

    const rev = await gitsync(["revision", name]);
    assert.equal(rev.code, 0, rev.stderr);
    assert.match(rev.stdout, /^Phase: +Healthy$/m);
    assert.match(rev.stdout, new RegExp(`^Plan: +${first.status!.plan!.digest}$`, "m"));
    assert.match(rev.stdout, /^Approved: +by bob at /m);
    assert.match(rev.stdout, /^ {2}pre-sync +Job\/migrate Succeeded$/m);

    const logs = await gitsync(["logs", "shop"]);
    assert.equal(logs.code, 0, logs.stderr);
    for (const reason of ["AwaitingApproval", "RolloutComplete"]) {
      assert.match(logs.stdout, new RegExp(`^\\S+ +Normal +${reason} +Revision/${name} `, "m"));
    }

    const wide = await gitsync(["apps", "-o", "wide"]);
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /^NAME .* PATH +SERVICE ACCOUNT +FLAGS +MESSAGE$/m);
    assert.match(
      wide.stdout,
      /^shop +approval .* deploy +deployer +<none> +Revision shop-\w+ is deployed and Healthy$/m,
    );

    const unattended = await gitsync(["approve", "shop"]);
    assert.equal(unattended.code, 2);
    assert.match(unattended.stderr, /there is no terminal: pass --yes, or --digest/);
  });

  it("a commit whose migration fails ends in HookFailed; the deployed Revision stays", async () => {
    await repo.commit(files(true), "break the migration");
    const next = await until("a new Revision awaiting approval", async () => {
      const name = (await app()).status?.desiredRevision;
      if (!name || name === first.metadata!.name) return undefined;
      const rev = await revision(name);
      return rev.status?.phase === "AwaitingApproval" ? rev : undefined;
    });
    // A pipeline approves and waits: the failed rollout is exit code 1 with the reason.
    const waited = await gitsync(["approve", "shop", "--yes", "--wait", "--timeout", "60s"]);
    assert.equal(waited.code, 1, waited.stdout + waited.stderr);
    assert.match(
      waited.stderr,
      /^error: Revision shop-\w+ failed: HookFailed: pre-sync hook Job\/shop\/migrate failed/m,
    );
    assert.match(waited.stderr, /Applying \(pre-sync hook migrate\)/);
    const failed = await revision(next.metadata!.name!);
    assert.equal(failed.status!.failure!.reason, "HookFailed");
    assert.match(
      failed.status!.failure!.message,
      /^pre-sync hook Job\/shop\/migrate failed: job failed: BackoffLimitExceeded/,
    );
    assert.equal((await app()).status?.deployedRevision, first.metadata!.name);
    assert.equal(failed.status!.diagnosis?.firstRootCause?.resource.kind, "Pod");
    // The audit export: who approved which plan, newest first.
    const history = await gitsync(["history", "shop", "-o", "json"]);
    assert.equal(history.code, 0, history.stderr);
    const items = JSON.parse(history.stdout).items as {
      revision: string;
      phase: string;
      current?: string;
      approval?: { approvedBy: string; planDigest: string };
    }[];
    assert.deepEqual(items.map((i) => `${i.revision} ${i.phase} ${i.current} ${i.approval?.approvedBy}`), [
      `${next.metadata!.name} Failed desired bob`,
      `${first.metadata!.name} Healthy deployed bob`,
    ]);
    assert.equal(items[1]!.approval!.planDigest, first.status!.plan!.digest);

    // A retry runs the failed hook again (attempt 2, a new Job), under the same approval; it fails again here.
    const retried = await gitsync(["retry", "shop", "--wait", "--timeout", "60s"]);
    assert.equal(retried.code, 1, retried.stdout + retried.stderr);
    assert.match(retried.stderr, /^Retrying Revision shop-\w+ \(it failed with HookFailed\)$/m);
    assert.match(
      retried.stderr,
      /^error: Revision shop-\w+ failed: HookFailed: pre-sync hook Job\/shop\/migrate failed/m,
    );
    const again = await revision(next.metadata!.name!);
    assert.equal(again.status!.rollout!.attempt, 2);
    assert.deepEqual(again.status!.hooks!.map((h) => `${h.name} ${h.state} ${h.rollout}`), [
      "migrate Failed 2",
    ]);
    assert.equal(again.status!.approval!.approvedBy, "bob", "the approval it had");
    const events = await listEvents(admin, { ...again, apiVersion: API_VERSION, kind: "Revision" });
    assert.ok(events.some((e) => e.reason === "RetryStarted"), JSON.stringify(events.map((e) => e.reason)));
  });

  it("a rollback returns to the newest known-good Revision other than the desired and deployed one", async () => {
    // A good commit again, approved and rolled out: the failed Revision is no longer desired.
    await repo.commit(files(), "fix the migration");
    const fixed = await until("a third Revision awaiting approval", async () => {
      const name = (await app()).status?.desiredRevision;
      const rev = name ? await revision(name) : undefined;
      return rev && rev.spec.sourceRevision !== first.spec.sourceRevision &&
          rev.status?.phase === "AwaitingApproval" &&
          !rev.status.failure
        ? rev
        : undefined;
    });
    const rolledOut = await gitsync(["approve", "shop", "--yes", "--wait", "--timeout", "60s"]);
    assert.equal(rolledOut.code, 0, rolledOut.stderr);
    assert.equal((await app()).status?.deployedRevision, fixed.metadata!.name);

    const back = await gitsync(["rollback", "shop", "--wait", "--timeout", "60s", "-o", "json"]);
    assert.equal(back.code, 0, back.stderr);
    assert.match(
      back.stderr,
      new RegExp(`Rolling back Application shop/shop to Revision ${first.metadata!.name}`),
    );
    const out = JSON.parse(back.stdout);
    assert.equal(out.revision, first.metadata!.name);
    assert.equal(out.requestedBy, "bob");
    assert.equal(out.phase, "Healthy");
    const a = await app();
    assert.equal(a.status?.deployedRevision, first.metadata!.name);
    assert.equal(a.status?.conditions?.find((c) => c.type === "Ready")?.reason, "RolledBack");
    const rev = await revision(first.metadata!.name!);
    assert.equal(rev.status?.approval?.approvedBy, "rollback by bob");
    assert.deepEqual(rev.status?.hooks?.map((h) => `${h.name} ${h.state} ${h.rollout}`), [
      "migrate Succeeded 2",
    ]);
    const events = await listEvents(admin, { ...a, apiVersion: API_VERSION, kind: "Application" });
    assert.ok(events.some((e) => e.reason === "RolledBack"), JSON.stringify(events.map((e) => e.reason)));

    // History: with a limit of 2 the oldest other Revision goes; the deployed one stays though older.
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/shop`,
      contentType: "application/merge-patch+json",
      body: { spec: { history: { limit: 2 } } },
    });
    const kept = await until("history trimmed to 2", async () => {
      const list = await get<{ items: Revision[] }>(
        `${API}/revisions?labelSelector=sync.gitsync.io%2Fapplication%3Dshop`,
      );
      return list.items.length === 2 ? list.items.map((r) => r.metadata!.name).sort() : undefined;
    });
    assert.deepEqual(kept, [first.metadata!.name, fixed.metadata!.name].sort());
  });

  it("an Application that syncs automatically deploys without an approval", async () => {
    await createApplication("auto", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: { repositoryRef: { name: "shop" }, path: "auto" },
    });
    const a = await untilDeployed("auto");
    assert.equal(a.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
    const cm = await get<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(
      `/api/v1/namespaces/${NS}/configmaps/auto-settings`,
    );
    assert.equal(cm.data.mode, "auto");
    assert.equal(cm.metadata.labels["sync.gitsync.io/application"], "auto");
  });

  it("a path with a kustomization is built by the embedded Kustomize; suspend, sync and resume", async () => {
    const kz = await git.createRepo("kz", {
      "base/kustomization.yaml":
        "resources: [cm.yaml]\nconfigMapGenerator:\n- name: flags\n  literals: [beta=on]\n",
      "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: base}\n",
      "overlay/kustomization.yaml":
        "resources: [../base]\nnamePrefix: kz-\npatches:\n- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n" +
        "    metadata: {name: settings}\n    data: {mode: overlay}\n",
    });
    await createRepository("kz", { git: { url: kz.url } });
    await createApplication("kz", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: { repositoryRef: { name: "kz" }, path: "overlay" },
    });
    const a = await untilDeployed("kz");
    const rev = await revision(a.status!.deployedRevision!);
    const names = rev.status!.plan!.entries.map((e) => e.name);
    assert.equal(names.length, 2);
    assert.ok(names.includes("kz-settings"));
    const flags = names.find((n) => n !== "kz-settings")!;
    assert.match(flags, /^kz-flags-[a-z0-9]{10}$/, "the generated ConfigMap keeps Kustomize's hash suffix");
    const cm = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/kz-settings`);
    assert.equal(cm.data.mode, "overlay");
    assert.equal(
      (await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/${flags}`)).data.beta,
      "on",
    );

    // Suspended, a fetched commit makes no Revision; resumed, it rolls out. `gitsync sync` fetches at once.
    const deployed = a.status!.deployedRevision!;
    const suspended = await gitsync(["suspend", "kz"]);
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.equal(suspended.stdout.trim(), `Application ${NS}/kz suspended`);
    const commit = await kz.commit({
      "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: v2}\n",
    });
    const synced = await runBinary("gitsync", [
      "sync",
      "kz",
      "--wait",
      "-n",
      NS,
      "--kubeconfig",
      k8s.kubeconfigPath,
      "-o",
      "json",
    ]);
    assert.equal(synced.code, 0, synced.stderr);
    assert.equal(JSON.parse(synced.stdout).commit, commit);
    await new Promise((r) => setTimeout(r, 1_000));
    const held = await get<Application>(`${API}/applications/kz`);
    assert.equal(held.status?.deployedRevision, deployed);
    assert.notEqual(
      held.status?.sourceRevision,
      commit,
      "a suspended Application does not take the new commit",
    );
    assert.match((await gitsync(["get", "kz"])).stdout, /^Sync: +automatic, SUSPENDED$/m);
    assert.equal((await gitsync(["resume", "kz"])).code, 0);
    await until("the new commit deployed", async () => {
      const x = await get<Application>(`${API}/applications/kz`);
      return x.status?.deployedRevision !== deployed && x.status?.sourceRevision === commit ? x : undefined;
    });
    assert.equal(
      (await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/kz-settings`)).data
        .mode,
      "overlay",
    );
  });

  it("discovery: .gitsync.yaml declares Applications within the Repository's policy; asking for more changes nothing", async () => {
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: b}\n`;
    const config = (apps: string[], extra = "") =>
      `applications:\n${
        apps.map((a) =>
          `  - name: ${a}\n    spec:\n      source: {path: ${a}}\n      sync: {automatic: true}\n${extra}`
        ).join("")
      }`;
    const platform = await git.createRepo("platform", {
      ".gitsync.yaml": config(["disc-a", "disc-b"]),
      "disc-a/cm.yaml": cm("disc-a"),
      "disc-b/cm.yaml": cm("disc-b"),
    });
    await createRepository("platform", {
      git: { url: platform.url },
      pollInterval: "1s",
      applicationServiceAccountName: "deployer",
      applicationPolicy: { allowAutomatic: true },
    });
    const discovered = (status: string) => async () => {
      const r = await get<Repository>(`${API}/repositories/platform`);
      return r.status?.conditions?.find((c) => c.type === "Discovered" && c.status === status);
    };
    assert.match(
      (await until("discovered", discovered("True"))).message!,
      /^2 Application\(s\) from \.gitsync\.yaml$/,
    );
    for (const name of ["disc-a", "disc-b"]) {
      const a = await untilDeployed(name);
      assert.equal(a.metadata!.labels!["sync.gitsync.io/repository"], "platform");
      assert.equal(a.metadata!.annotations!["sync.gitsync.io/discovered-from"], ".gitsync.yaml");
      assert.equal(a.metadata!.ownerReferences![0]!.kind, "Repository");
      assert.equal(a.spec.serviceAccountName, "deployer");
      assert.equal(a.spec.sync?.prune, false, "prune stays off without allowPrune");
    }

    // Asking for adoption (not allowed) while dropping disc-b: refused, and disc-b is not deleted.
    await platform.commit({ ".gitsync.yaml": config(["disc-a"], "      conflictPolicy: adopt\n") });
    const refused = await until("refused", discovered("False"));
    assert.equal(refused.reason, "PolicyViolation");
    assert.match(
      refused.message!,
      /\.gitsync\.yaml: Application disc-a: spec\.conflictPolicy: adopt is not allowed \(spec\.applicationPolicy\.allowAdopt\); nothing discovered/,
    );
    await get(`${API}/applications/disc-b`);

    // Fixed: disc-b goes, its ConfigMap stays (allowDeleteManagedResources is off).
    await platform.commit({ ".gitsync.yaml": config(["disc-a"]) });
    await until("disc-b deleted", async () => {
      try {
        await get(`${API}/applications/disc-b`);
        return undefined;
      } catch (err) {
        return /NotFound/.test(String(err)) ? true : undefined;
      }
    });
    assert.equal(
      (await until("discovered again", discovered("True"))).message,
      "1 Application(s) from .gitsync.yaml",
    );
    await get(`/api/v1/namespaces/${NS}/configmaps/disc-b`);
  });

  it("a Repository over ssh is fetched with the Secret's identity, refused without its known_hosts entry", async () => {
    const secure = await git.createRepo("secure", { "deploy/cm.yaml": "kind: ConfigMap\n" });
    const credentials = (name: string, data: Record<string, string>) =>
      admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${NS}/secrets`,
        body: { metadata: { name, labels: { "sync.gitsync.io/git-credentials": "true" } }, stringData: data },
      });
    await credentials("ssh-key", { identity: git.ssh!.identity, known_hosts: git.ssh!.knownHosts });
    await credentials("ssh-no-hosts", { identity: git.ssh!.identity });
    const repository = (name: string, secret: string) =>
      admin.request({
        method: "POST",
        path: `${API}/repositories`,
        body: {
          apiVersion: API_VERSION,
          kind: "Repository",
          metadata: { name },
          spec: { git: { url: secure.sshUrl, auth: { secretRef: { name: secret } } } },
        },
      });
    await repository("secure", "ssh-key");
    await repository("secure-unverified", "ssh-no-hosts");
    const ready = (name: string, status: string) => async () => {
      const r = await get<Repository>(`${API}/repositories/${name}`);
      return r.status?.conditions?.find((c) => c.type === "Ready" && c.status === status) ? r : undefined;
    };
    const fetched = await until("fetched over ssh", ready("secure", "True"));
    assert.match(fetched.status!.artifact!.revision ?? "", /^[0-9a-f]{40}$/);
    const refused = await until("refused", ready("secure-unverified", "False"));
    const condition = refused.status!.conditions!.find((c) => c.type === "Ready")!;
    assert.equal(condition.reason, "AuthenticationFailure");
    assert.match(condition.message!, /ssh needs the server's host key in the credentials Secret/);
    assert.doesNotMatch(manager.output(), /PRIVATE KEY/);
  });

  it("SOPS: an encrypted file is decrypted with the Application's age key; without spec.decryption it is refused", async () => {
    const identity = await generateIdentity();
    const plain =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sealed\ndata:\n  dsn: postgres://app:hunter2@db/shop\n";
    const sealed = await git.createRepo("sealed", {
      "deploy/cm.yaml": await sopsEncrypt(plain, "yaml", await identityToRecipient(identity)),
    });
    await createRepository("sealed", { git: { url: sealed.url } });
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/secrets`,
      body: {
        metadata: { name: "sops-age", labels: { "sync.gitsync.io/decryption-key": "true" } },
        stringData: { "identity.agekey": `# created by the test\n${identity}\n` },
      },
    });
    const source = { repositoryRef: { name: "sealed" }, path: "deploy" };
    await createApplication("sealed-nokey", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source,
    });
    await createApplication("sealed", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source,
      decryption: { provider: "sops", secretRef: { name: "sops-age" } },
    });
    const refused = await until("refused", async () => {
      const name = (await get<Application>(`${API}/applications/sealed-nokey`)).status?.desiredRevision;
      const rev = name ? await revision(name) : undefined;
      return rev?.status?.phase === "Failed" ? rev : undefined;
    });
    assert.equal(refused.status!.failure!.reason, "ValidationFailure");
    assert.match(
      refused.status!.failure!.message,
      /SOPS-encrypted file\(s\) \(deploy\/cm.yaml\) but the Application has no spec.decryption/,
    );
    await until(
      "deployed",
      async () => (await get<Application>(`${API}/applications/sealed`)).status?.deployedRevision,
    );
    const cm = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/sealed`);
    assert.equal(cm.data.dsn, "postgres://app:hunter2@db/shop", "applied decrypted");
    const shown = await gitsync(["plan", "sealed"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.doesNotMatch(shown.stdout, /hunter2/, "the plan shows the value redacted");
    assert.match(shown.stdout, /postgres:\/\/REDACTED@db\/shop/);
  });

  it("drift: reported on the Application; with selfHeal and automatic sync the objects are restored", async () => {
    const edit = (name: string, mode: string) =>
      admin.request({
        method: "PATCH",
        path: `/api/v1/namespaces/${NS}/configmaps/${name}`,
        query: { fieldManager: "kubectl-edit" },
        contentType: "application/merge-patch+json",
        body: { data: { mode } },
      });
    // Without selfHeal: reported only, the hand edit stays.
    await edit("settings", "hand-edited");
    const shop = await until("shop Drifted", async () => {
      const a = await app();
      return a.status?.conditions?.find((c) => c.type === "Drifted" && c.status === "True") ? a : undefined;
    });
    assert.match(shop.status!.conditions!.find((c) => c.type === "Drifted")!.message!, /ConfigMap\/settings/);
    const settings = await get<{ data: { mode: string } }>(`/api/v1/namespaces/${NS}/configmaps/settings`);
    assert.equal(settings.data.mode, "hand-edited");

    // With selfHeal on an automatic Application: put back, taking the field back from the editor.
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/auto`,
      contentType: "application/merge-patch+json",
      body: { spec: { sync: { selfHeal: true } } },
    });
    await edit("auto-settings", "hand-edited");
    await until("auto-settings restored", async () => {
      const cm = await get<{ data: { mode: string } }>(`/api/v1/namespaces/${NS}/configmaps/auto-settings`);
      return cm.data.mode === "auto" ? cm : undefined;
    });
    const events = await listEvents(admin, {
      ...(await get<Application>(`${API}/applications/auto`)),
      apiVersion: API_VERSION,
      kind: "Application",
    });
    assert.ok(events.some((e) => e.reason === "DriftDetected"), JSON.stringify(events.map((e) => e.reason)));
    await until("auto back in sync", async () => {
      const a = await get<Application>(`${API}/applications/auto`);
      return a.status?.conditions?.find((c) => c.type === "Drifted" && c.status === "False") ? a : undefined;
    });
  });

  it("a kind the service account may not list is left out of pruning, with a Warning saying so", async () => {
    (await serviceAccountWithRole(admin, NS, "limited", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "create", "patch", "update"] },
    ])).close();
    await createApplication("limited", {
      serviceAccountName: "limited",
      sync: { automatic: true },
      source: { repositoryRef: { name: "shop" }, path: "limited" },
    });
    const a = await untilDeployed("limited");
    const rev = await revision(a.status!.deployedRevision!);
    const events = await listEvents(admin, { ...rev, apiVersion: API_VERSION, kind: "Revision" });
    const warning = events.find((e) => e.reason === "PruneInventoryIncomplete");
    assert.ok(warning, JSON.stringify(events.map((e) => e.reason)));
    assert.equal(warning.message, "limited may not list ConfigMap: left out of pruning");
  });

  it("failures name the object: Forbidden for what the account may not write, ConflictFailure for another owner's field", async () => {
    // Another tool owns this field already (Server-Side Apply with its own field manager).
    await admin.request({
      method: "PATCH",
      path: `/api/v1/namespaces/${NS}/configmaps/owned-elsewhere`,
      query: { fieldManager: "other-tool" },
      contentType: "application/apply-patch+yaml",
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "owned-elsewhere" },
        data: { mode: "theirs" },
      },
    });
    for (const [name, path] of [["forbidden", "forbidden"], ["conflict", "conflict"]]) {
      await createApplication(name!, {
        serviceAccountName: "deployer",
        sync: { automatic: true },
        source: { repositoryRef: { name: "shop" }, path },
      });
    }
    const failure = (name: string) =>
      until(`${name} Failed`, async () => {
        const a = await get<Application>(`${API}/applications/${name}`);
        const rev = a.status?.desiredRevision ? await revision(a.status.desiredRevision) : undefined;
        return rev?.status?.phase === "Failed" ? rev.status.failure : undefined;
      });
    const forbidden = await failure("forbidden");
    assert.equal(forbidden!.reason, "Forbidden");
    assert.match(
      forbidden!.message,
      /^system:serviceaccount:shop:deployer may not apply Secret\/shop\/not-mine/,
    );
    const conflict = await failure("conflict");
    assert.equal(conflict!.reason, "ConflictFailure");
    assert.match(
      conflict!.message,
      /^ConfigMap\/shop\/owned-elsewhere: fields are owned by another manager .*other-tool/,
    );
    const cm = await get<{ data: { mode: string } }>(`/api/v1/namespaces/${NS}/configmaps/owned-elsewhere`);
    assert.equal(cm.data.mode, "theirs");
  });

  it("diagnosis: a crash-looping Deployment is traced to its Pod's container, shown by gitsync diagnose", async () => {
    await createApplication("crasher", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: { repositoryRef: { name: "shop" }, path: "crasher" },
    });
    const rev = await until("diagnosed", async () => {
      const a = await get<Application>(`${API}/applications/crasher`);
      const r = a.status?.desiredRevision ? await revision(a.status.desiredRevision) : undefined;
      return r?.status?.diagnosis?.causes.some((c) => c.reason === "CrashLoopBackOff") ? r : undefined;
    });
    const d = rev.status!.diagnosis!;
    // Two root causes (the crash loop, and the other Deployment's missing claim), never the consequence.
    assert.notEqual(d.firstRootCause!.reason, "NoEndpoints");
    const crash = d.causes.find((c) => c.reason === "CrashLoopBackOff")!;
    assert.deepEqual(crash.chain.map((c) => c.kind), ["Deployment", "ReplicaSet", "Pod"]);
    assert.match(crash.message, /^container app: back-off \d+s restarting failed container/);
    // What it does to traffic, and the other Deployment's missing claim.
    const full = await until("all causes", async () => {
      const r = await revision(rev.metadata!.name!);
      const reasons = r.status?.diagnosis?.causes.map((c) => c.reason) ?? [];
      return ["NoEndpoints", "MissingPersistentVolumeClaim", "MissingSecret", "Unschedulable"]
          .every((x) => reasons.includes(x))
        ? r
        : undefined;
    });
    const byReason = (reason: string) => full.status!.diagnosis!.causes.find((c) => c.reason === reason)!;
    assert.deepEqual(byReason("NoEndpoints").chain.map((c) => `${c.kind}/${c.name}`), [
      "Deployment/crasher",
      "Service/crasher",
    ]);
    assert.match(
      byReason("MissingPersistentVolumeClaim").message,
      /^PersistentVolumeClaim data does not exist$/,
    );
    // A Secret the container reads is missing (the kubelet's CreateContainerConfigError, traced to it).
    assert.equal(byReason("MissingSecret").message, "Secret api-token does not exist");
    assert.deepEqual(byReason("MissingSecret").chain.map((c) => c.kind), ["Deployment", "ReplicaSet", "Pod"]);
    assert.equal(byReason("MissingSecret").chain[0]!.name, "secret-user");
    // No node matches: the scheduler's own words.
    const pinned = full.status!.diagnosis!.causes.find((c) =>
      c.reason === "Unschedulable" && c.chain[0]!.name === "pinned"
    )!;
    assert.match(pinned.message, /node\(s\) didn't match Pod's node affinity\/selector/);
    const events = await listEvents(admin, { ...rev, apiVersion: API_VERSION, kind: "Revision" });
    assert.ok(
      events.some((e) =>
        e.reason === "Diagnosed" &&
        /^(CrashLoopBackOff: Pod\/crasher-|MissingPersistentVolumeClaim: Pod\/claims-)/.test(
          String(e.message),
        )
      ),
    );
    const shown = await runBinary("gitsync", [
      "diagnose",
      "crasher",
      "-n",
      NS,
      "--kubeconfig",
      k8s.kubeconfigPath,
    ]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      /^CrashLoopBackOff {2}Deployment\/crasher → ReplicaSet\/crasher-\w+ → Pod\/crasher-\w+-\w+$/m,
    );
  });

  it("notifications: a signed webhook per transition; redirecting, failing and non-https sinks are reported, never their URLs", async () => {
    const received: { headers: Record<string, unknown>; body: string }[] = [];
    const hits: Record<string, number> = {};
    const sink = createHttpsServer({
      cert: readFileSync(join(cacheRoot, "tls.crt")),
      key: readFileSync(join(cacheRoot, "tls.key")),
    }, (req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        hits[req.url!] = (hits[req.url!] ?? 0) + 1;
        if (req.url === "/moved") return void res.writeHead(302, { location: "/hook" }).end();
        if (req.url === "/broken") return void res.writeHead(500).end();
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    try {
      const port = (sink.address() as AddressInfo).port;
      const secret = (name: string, data: Record<string, string>) =>
        admin.request({
          method: "POST",
          path: `/api/v1/namespaces/${NS}/secrets`,
          body: { metadata: { name }, stringData: data },
        });
      const notificationSink = (name: string, type: string) =>
        admin.request({
          method: "POST",
          path: `${API}/notificationsinks`,
          body: {
            apiVersion: API_VERSION,
            kind: "NotificationSink",
            metadata: { name },
            spec: { type, secretRef: { name } },
          },
        });
      // The sink's certificate is the test's own: trusted through the Secret's ca.crt, as a private CA is.
      await secret("team-hook", {
        url: `https://127.0.0.1:${port}/hook`,
        hmacKey: "hmac-s3cret",
        "ca.crt": readFileSync(join(cacheRoot, "tls.crt"), "utf8"),
      });
      await notificationSink("team-hook", "webhook");
      for (const [name, path] of [["moved-hook", "/moved"], ["broken-hook", "/broken"]]) {
        await secret(name!, {
          url: `https://127.0.0.1:${port}${path}`,
          hmacKey: "hmac-s3cret",
          "ca.crt": readFileSync(join(cacheRoot, "tls.crt"), "utf8"),
        });
        await notificationSink(name!, "webhook");
      }
      await secret("plain-hook", { url: "http://hooks.example/T000/B000/XXXX" });
      await notificationSink("plain-hook", "slack");
      await createApplication("notified", {
        serviceAccountName: "deployer",
        sync: { automatic: true },
        source: { repositoryRef: { name: "shop" }, path: "notified" },
        notifications: [
          { sinkRef: { name: "team-hook" }, events: ["Healthy"] },
          { sinkRef: { name: "plain-hook" } },
          { sinkRef: { name: "moved-hook" }, events: ["Healthy"] },
          { sinkRef: { name: "broken-hook" }, events: ["Healthy"] },
        ],
      });
      const delivered = await until("delivered", () => Promise.resolve(received[0]));
      const body = JSON.parse(delivered.body);
      assert.equal(body.event, "Healthy");
      assert.deepEqual(body.application, { namespace: NS, name: "notified" });
      assert.equal(
        delivered.headers["x-gitsync-signature"],
        `sha256=${createHmac("sha256", "hmac-s3cret").update(delivered.body).digest("hex")}`,
      );
      const a = await until("NotificationsReady False", async () => {
        const x = await get<Application>(`${API}/applications/notified`);
        return x.status?.conditions?.find((c) => c.type === "NotificationsReady" && c.status === "False")
          ? x
          : undefined;
      });
      const condition = a.status!.conditions!.find((c) => c.type === "NotificationsReady")!;
      assert.match(condition.message!, /plain-hook needs key url with an https URL/);
      const events = await until("NotificationFailed", async () => {
        const e = await listEvents(admin, { ...a, apiVersion: API_VERSION, kind: "Application" });
        return e.some((x) => x.reason === "NotificationFailed") ? e : undefined;
      });
      // A redirect is a failure (never followed to /hook), a 500 is retried: three attempts each.
      await until(
        "three attempts at each failing sink",
        () => Promise.resolve(hits["/moved"] === 3 && hits["/broken"] === 3 ? true : undefined),
        20_000,
      );
      const failed = await until("NotificationFailed for both", async () => {
        const e = (await listEvents(admin, { ...a, apiVersion: API_VERSION, kind: "Application" }))
          .filter((x) => x.reason === "NotificationFailed");
        return e.length >= 3 ? e : undefined;
      });
      assert.doesNotMatch(
        JSON.stringify([events, failed]) + manager.output(),
        new RegExp(`hooks\\.example|T000|/moved|/broken|127\\.0\\.0\\.1:${port}`),
      );
      assert.equal(received.length, 1, "only the Healthy event, only to the sink that wants it");
      assert.equal(hits["/hook"], 1);
    } finally {
      sink.close();
      sink.closeAllConnections?.();
    }
  });

  it("an Application with no service account (and no default) is refused; nothing is created for it", async () => {
    await createApplication("nobody", { source: { repositoryRef: { name: "shop" }, path: "deploy" } });
    const a = await until("ServiceAccountRequired", async () => {
      const x = await get<Application>(`${API}/applications/nobody`);
      return x.status?.conditions?.find((c) => c.reason === "ServiceAccountRequired") ? x : undefined;
    });
    assert.equal(a.status?.desiredRevision, undefined);
    const revs = await get<{ items: Revision[] }>(`${API}/revisions`);
    assert.ok(revs.items.every((r) => r.spec.applicationRef.name !== "nobody"));
  });

  it("the controller's own account cannot change managed resources", async () => {
    const asController = KubeClient.fromKubeconfig({ path: controllerKubeconfig });
    try {
      await assert.rejects(
        asController.request({
          method: "POST",
          path: `/api/v1/namespaces/${NS}/configmaps`,
          body: { metadata: { name: "sneaky" } },
        }),
        /Forbidden/,
      );
    } finally {
      asController.close();
    }
  });

  it("metrics: HTTPS; no token is 401, a token without get on /metrics 403, gitsync-metrics-reader 200", async () => {
    const port = manager.records().find((r) => r.msg === "listening")!.metricsPort as number;
    assert.equal((await scrape(port)).status, 401);
    assert.equal((await scrape(port, "not-a-token")).status, 401);
    assert.equal((await scrape(port, await tokenOf("gitsync-system", "gitsync-manager"))).status, 403);
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces/gitsync-system/serviceaccounts",
      body: { metadata: { name: "prometheus" } },
    });
    await admin.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: {
        metadata: { name: "prometheus-reads-gitsync" },
        roleRef: {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "ClusterRole",
          name: "gitsync-metrics-reader",
        },
        subjects: [{ kind: "ServiceAccount", name: "prometheus", namespace: "gitsync-system" }],
      },
    });
    const ok = await scrape(port, await tokenOf("gitsync-system", "prometheus"));
    assert.equal(ok.status, 200, ok.body);
    assert.match(
      ok.body,
      /^gitsync_reconcile_total\{controller="Revision",result="(success|requeue)"\} [1-9]\d*$/m,
    );
    assert.match(ok.body, /^gitsync_revisions\{phase="Healthy"\} [1-9]\d*$/m);
    assert.match(ok.body, /^gitsync_leader 1$/m);
    assert.match(ok.body, /^gitsync_reconcile_duration_seconds_count\{controller="Application"\} \d+$/m);
  });

  it("a signed push to the receiver makes a Repository fetch now, not at its next poll", async () => {
    const port = manager.records().find((r) => r.msg === "listening")!.receiverPort as number;
    await admin.request({
      method: "POST",
      path: `/api/v1/namespaces/${NS}/secrets`,
      body: { metadata: { name: "push-token" }, stringData: { token: "hook-s3cret" } },
    });
    const pushed = await git.createRepo("pushed", { "deploy/a.yaml": "kind: ConfigMap\n" });
    await createRepository("pushed", {
      git: { url: pushed.url },
      pollInterval: "1h",
      webhook: { secretRef: { name: "push-token" } },
    });
    const fetched = () =>
      get<Repository>(`${API}/repositories/pushed`).then((r) => r.status?.artifact?.revision);
    await until("first fetch", fetched);
    const commit = await pushed.commit({ "deploy/a.yaml": "kind: ConfigMap\ndata: {}\n" }, "change");
    const body = JSON.stringify({ ref: "refs/heads/main", repository: { clone_url: pushed.url } });
    const post = (signature: string) =>
      fetch(`http://127.0.0.1:${port}/hooks/${NS}/pushed`, {
        method: "POST",
        body,
        headers: { "x-github-event": "push", "x-hub-signature-256": signature },
      }).then(async (r) => `${r.status} ${(await r.text()).trim()}`);
    assert.equal(await post("sha256=" + "0".repeat(64)), "401 unauthorized");
    const signature = `sha256=${createHmac("sha256", "hook-s3cret").update(body).digest("hex")}`;
    assert.equal(await post(signature), "202 accepted");
    await until(
      "fetched the pushed commit",
      async () => ((await fetched()) === commit ? commit : undefined),
      15_000,
    );
    // GitLab's Push Hook with its token stamps the Repository the same way.
    const next = await pushed.commit({ "deploy/a.yaml": "kind: ConfigMap\ndata: {b: c}\n" }, "change 2");
    const gitlab = await fetch(`http://127.0.0.1:${port}/hooks/${NS}/pushed`, {
      method: "POST",
      body: JSON.stringify({ object_kind: "push", project: { git_http_url: pushed.url } }),
      headers: { "x-gitlab-event": "Push Hook", "x-gitlab-token": "hook-s3cret" },
    });
    assert.equal(`${gitlab.status} ${(await gitlab.text()).trim()}`, "202 accepted");
    await until(
      "fetched the commit GitLab announced",
      async () => ((await fetched()) === next ? next : undefined),
      15_000,
    );
  });

  it("image automation: a registry push event rescans the ImagePolicy, the new image is committed back and rolls out", async () => {
    const port = manager.records().find((r) => r.msg === "listening")!.receiverPort as number;
    const registry = await startRegistry();
    try {
      const image = `${registry.host}/shop/web`;
      const first = await registry.pushImage("shop/web", "1.0.0");
      await admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${NS}/secrets`,
        body: { metadata: { name: "image-hook" }, stringData: { token: "image-hook-s3cret" } },
      });
      await admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${NS}/secrets`,
        body: {
          metadata: { name: "image-push", labels: { "sync.gitsync.io/git-credentials": "true" } },
          stringData: { username: "gitsync", password: "unused-here" },
        },
      });
      await admin.request({
        method: "POST",
        path: `${API}/imagepolicies`,
        body: {
          apiVersion: API_VERSION,
          kind: "ImagePolicy",
          metadata: { name: "web" },
          spec: {
            image,
            interval: "1h",
            policy: { semver: { range: "^1.0.0" } },
            webhook: { secretRef: { name: "image-hook" } },
          },
        },
      });
      const settings = (ref: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: image-settings\ndata:\n  image: ${ref} # {"$imagepolicy": "${NS}:web"}\n`;
      const imaged = await git.createRepo("imaged", { "deploy/cm.yaml": settings(`${image}:0.9.0`) });
      await createRepository("imaged", {
        git: { url: imaged.url },
        pollInterval: "1h",
        imageUpdate: { secretRef: { name: "image-push" }, path: "deploy" },
      });
      await createApplication("imaged", {
        serviceAccountName: "deployer",
        sync: { automatic: true },
        source: { repositoryRef: { name: "imaged" }, path: "deploy" },
      });
      const live = () =>
        get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/image-settings`)
          .then((c) => c.data.image, () => undefined);
      await until(
        "1.0.0 written back and deployed",
        async () => (await live()) === `${image}:1.0.0@${first}` ? true : undefined,
        30_000,
      );

      const second = await registry.pushImage("shop/web", "1.1.0");
      const hook = (token: string) =>
        fetch(`http://127.0.0.1:${port}/hooks/imagepolicies/${NS}/web`, {
          method: "POST",
          body: JSON.stringify({
            events: [{ action: "push", target: { repository: "shop/web", tag: "1.1.0" } }],
          }),
          headers: { authorization: `Bearer ${token}` },
        }).then(async (r) => `${r.status} ${(await r.text()).trim()}`);
      assert.equal(await hook("wrong"), "401 unauthorized");
      assert.equal(await hook("image-hook-s3cret"), "202 accepted");
      await until(
        "1.1.0 written back and deployed",
        async () => (await live()) === `${image}:1.1.0@${second}` ? true : undefined,
        30_000,
      );
      assert.equal(await imaged.show("deploy/cm.yaml"), settings(`${image}:1.1.0@${second}`));
      const repo = await get<Repository>(`${API}/repositories/imaged`);
      assert.equal(repo.status?.conditions?.find((c) => c.type === "ImagesUpdated")?.reason, "Pushed");
    } finally {
      await registry.stop();
    }
  });

  it("receiver abuse: 10,000 forged, oversize and unknown-object requests get 401/413/429, never a 5xx", async () => {
    const port = manager.records().find((r) => r.msg === "listening")!.receiverPort as number;
    const body = JSON.stringify({
      ref: "refs/heads/main",
      repository: { clone_url: "https://x.example/y.git" },
    });
    const kinds: { path: string; headers: Record<string, string>; oversize?: boolean }[] = [
      {
        path: `/hooks/${NS}/pushed`,
        headers: { "x-github-event": "push", "x-hub-signature-256": "sha256=" + "0".repeat(64) },
      },
      {
        path: `/hooks/${NS}/no-such-repository`,
        headers: { "x-gitlab-event": "Push Hook", "x-gitlab-token": "guess" },
      },
      { path: `/hooks/imagepolicies/${NS}/no-such-policy`, headers: { authorization: "Bearer guess" } },
      { path: `/hooks/${NS}/pushed`, headers: {}, oversize: true },
    ];
    const statuses = new Map<string, number>();
    let sent = 0;
    const one = async (i: number) => {
      const k = kinds[i % kinds.length]!;
      const res = await fetch(`http://127.0.0.1:${port}${k.path}`, {
        method: "POST",
        headers: k.headers,
        body: k.oversize ? new Uint8Array(1024 * 1024 + 1) : body,
      }).then(async (r) => (await r.body?.cancel(), String(r.status)), () => "connection closed");
      statuses.set(res, (statuses.get(res) ?? 0) + 1);
    };
    // The first burst: the oversize ones are cut at 1 MB, the others are the same 401, whatever is missing.
    const first: string[] = [];
    for (let i = 0; i < 8; i++) {
      const k = kinds[i % kinds.length]!;
      const r = await fetch(`http://127.0.0.1:${port}${k.path}`, {
        method: "POST",
        headers: k.headers,
        body: k.oversize ? new Uint8Array(1024 * 1024 + 1) : body,
      });
      first.push(`${r.status} ${(await r.text()).trim()}`);
      sent++;
    }
    assert.deepEqual(first, [
      "401 unauthorized",
      "401 unauthorized",
      "401 unauthorized",
      "413 too_large",
      "401 unauthorized",
      "401 unauthorized",
      "401 unauthorized",
      "413 too_large",
    ]);
    // Then the flood, 100 at a time, small bodies only (a limited client is answered before its body is read);
    // one in ten correctly signed (for another repository's URL, so nothing is stamped).
    const signedBody = JSON.stringify({
      ref: "refs/heads/main",
      repository: { clone_url: "https://x.example/y.git" },
    });
    const signedStatuses = new Map<string, number>();
    const signedOne = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/hooks/${NS}/pushed`, {
        method: "POST",
        body: signedBody,
        headers: {
          "x-github-event": "push",
          "x-hub-signature-256": `sha256=${
            createHmac("sha256", "hook-s3cret").update(signedBody).digest("hex")
          }`,
        },
      }).then(async (r) => `${r.status} ${(await r.text()).trim()}`);
      signedStatuses.set(res, (signedStatuses.get(res) ?? 0) + 1);
    };
    for (let at = sent; at < 10_000; at += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => (at + j) % 10 === 0 ? signedOne() : one((at + j) % 3)),
      );
    }
    assert.deepEqual(
      [...statuses.keys()].filter((s) => !["401", "429"].includes(s)),
      [],
      JSON.stringify([...statuses]),
    );
    assert.ok((statuses.get("429") ?? 0) > 8_000, JSON.stringify([...statuses]));
    // Rate limits come before authentication: correctly signed pushes from the flooding address wait their
    // turn like the forged ones; the few that get a token are authenticated and then refused for the URL.
    assert.deepEqual(
      [...signedStatuses.keys()].filter((s) => s !== "429 rate_limited" && s !== "400 repository_mismatch"),
      [],
    );
    assert.ok((signedStatuses.get("429 rate_limited") ?? 0) > 900, JSON.stringify([...signedStatuses]));
    // The manager is unharmed.
    const healthPort = manager.records().find((r) => r.msg === "listening")!.port as number;
    const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  });

  it("SIGTERM stops the leader cleanly (exit 0) and the standby replica takes over at once", async () => {
    assert.ok(!leads(standby), "only one replica leads");
    assert.ok(standby.records().some((r) => r.msg === "another replica leads"));
    assert.equal(await manager.stop("SIGTERM"), 0);
    assert.equal(manager.records().at(-1)?.msg, "stopped");
    assert.doesNotMatch(manager.output(), /BEGIN .*PRIVATE KEY|eyJhbGci/);
    // The Lease was released on the way out, so the standby need not wait for it to expire (15 s).
    const started = Date.now();
    await until("the standby leads", () => Promise.resolve(leads(standby) || undefined), 10_000);
    assert.ok(Date.now() - started < 8_000);
  });
});
