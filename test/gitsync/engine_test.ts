/**
 * The reconcilers together, in process, on a cluster with workloads and a real Git server: a commit
 * becomes a Revision with a plan that waits for approval with nothing applied; once approved it rolls
 * out (pre-sync hook, waves) to Healthy; an Application without a service account is refused; a
 * commit whose migration fails ends in HookFailed with the deployed Revision unchanged.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { API_VERSION, loadCrds } from "../../controller/gitsync/crds.ts";
import { type Application, applicationReconciler } from "../../controller/gitsync/reconcilers/application.ts";
import {
  readGitCredentials,
  type Repository,
  repositoryReconciler,
} from "../../controller/gitsync/reconcilers/repository.ts";
import { type Revision, revisionReconciler } from "../../controller/gitsync/reconcilers/revision.ts";
import { checkout, fetchGit } from "../../controller/gitsync/source/git/git_source.ts";
import {
  EventRecorder,
  Informer,
  installCrds,
  KubeClient,
  listEvents,
  objectKey,
  runWorkers,
  WorkQueue,
} from "../../internal/k8s/mod.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, POD_OUTCOME_ANNOTATION, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace, serviceAccountWithRole } from "../harness/k8s_fixtures.ts";

const NS = "shop";
const API = `/apis/${API_VERSION}/namespaces/${NS}`;

const files = (failMigration = false) => ({
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
  const stop = new AbortController();
  const queues: WorkQueue<string>[] = [];
  const workers: Promise<void>[] = [];

  const get = <T>(path: string) => admin.request<T>({ path });
  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 40_000): Promise<T> {
    const deadline = Date.now() + ms;
    let last: unknown;
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (err) {
        last = err;
      }
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (${last})` : ""}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const app = () => get<Application>(`${API}/applications/shop`);
  const revision = (name: string) => get<Revision>(`${API}/revisions/${name}`);
  const approve = async (rev: Revision) => {
    // What the admission webhook records when a person approves (tested in approval_webhook_test.ts).
    await admin.request({
      method: "PATCH",
      path: `${API}/applications/shop`,
      contentType: "application/merge-patch+json",
      body: {
        metadata: {
          annotations: {
            "sync.gitsync.io/approved-revision": rev.metadata!.name,
            "sync.gitsync.io/approved-by": "bob",
            "sync.gitsync.io/approved-at": new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
            "sync.gitsync.io/approved-digest": rev.status!.plan!.digest,
          },
        },
      },
    });
  };

  before(async () => {
    [k8s, git] = await Promise.all([startKubeApiServer({ workloads: true }), startGitHttpServer()]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-engine-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS, { forPods: true });
    (await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: ["", "apps", "batch"], resources: ["configmaps", "deployments", "jobs"], verbs: ["*"] },
    ])).close();
    repo = await git.createRepo("shop", files());

    const events = new EventRecorder(admin, { component: "gitsync-manager" });
    const repos = new Informer<Repository>(admin, { path: `/apis/${API_VERSION}/repositories` });
    const apps = new Informer<Application>(admin, { path: `/apis/${API_VERSION}/applications` });
    const revs = new Informer<Revision>(admin, { path: `/apis/${API_VERSION}/revisions` });
    const [repoQ, appQ, revQ] = [new WorkQueue<string>(), new WorkQueue<string>(), new WorkQueue<string>()];
    queues.push(repoQ, appQ, revQ);
    repos.onEvent((e) => {
      repoQ.add(objectKey(e.object));
      for (const a of apps.list()) appQ.add(objectKey(a));
    });
    apps.onEvent((e) => {
      appQ.add(objectKey(e.object));
      const desired = (e.object as Application).status?.desiredRevision;
      if (desired) revQ.add(`${e.object.metadata!.namespace}/${desired}`);
    });
    revs.onEvent((e) => revQ.add(objectKey(e.object)));
    for (const i of [repos, apps, revs]) void i.run(stop.signal);
    await Promise.all([repos.synced, apps.synced, revs.synced]);

    const source = async (ns: string, name: string, commit: string) => {
      const r = repos.get(`${ns}/${name}`)!;
      const f = await fetchGit({
        url: r.spec.git.url,
        revision: r.spec.git.revision ?? "main",
        credentials: await readGitCredentials(admin, r),
        cacheRoot,
        cacheKey: `${ns}/${name}`,
      });
      return await checkout({ ...f, commit });
    };
    workers.push(
      runWorkers(repoQ, 1, repositoryReconciler({ client: admin, get: (k) => repos.get(k), cacheRoot })),
      runWorkers(
        appQ,
        2,
        applicationReconciler({
          client: admin,
          getApplication: (k) => apps.get(k),
          getRepository: (k) => repos.get(k),
          events,
        }),
      ),
      runWorkers(
        revQ,
        2,
        revisionReconciler({
          client: admin,
          getRevision: (k) => revs.get(k),
          getApplication: (k) => apps.get(k),
          source,
          events,
          redact: (t) => t,
        }),
        (key, err) => console.error(`revision ${key}: ${(err as Error).stack}`),
      ),
    );

    await admin.request({
      method: "POST",
      path: `${API}/repositories`,
      body: {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name: "shop" },
        spec: { git: { url: repo.url }, pollInterval: "2s" },
      },
    });
    await admin.request({
      method: "POST",
      path: `${API}/applications`,
      body: {
        apiVersion: API_VERSION,
        kind: "Application",
        metadata: { name: "shop" },
        spec: { serviceAccountName: "deployer", source: { repositoryRef: { name: "shop" }, path: "deploy" } },
      },
    });
  });
  after(async () => {
    stop.abort();
    for (const q of queues) q.shutDown();
    await Promise.all(workers);
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
    const events = await listEvents(admin, { ...first, apiVersion: API_VERSION, kind: "Revision" });
    assert.ok(
      events.some((e) => e.reason === "AwaitingApproval"),
      JSON.stringify(events.map((e) => e.reason)),
    );
  });

  it("once approved it rolls out (hook, then waves) to Healthy, and the Application reports it deployed", async () => {
    await approve(first);
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
  });

  it("a commit whose migration fails ends in HookFailed; the deployed Revision stays", async () => {
    await repo.commit(files(true), "break the migration");
    const next = await until("a new Revision awaiting approval", async () => {
      const name = (await app()).status?.desiredRevision;
      if (!name || name === first.metadata!.name) return undefined;
      const rev = await revision(name);
      return rev.status?.phase === "AwaitingApproval" ? rev : undefined;
    });
    await approve(next);
    const failed = await until("Failed", async () => {
      const rev = await revision(next.metadata!.name!);
      return rev.status?.phase === "Failed" ? rev : undefined;
    });
    assert.equal(failed.status!.failure!.reason, "HookFailed");
    assert.match(
      failed.status!.failure!.message,
      /^pre-sync hook Job\/shop\/migrate failed: job failed: BackoffLimitExceeded/,
    );
    assert.equal((await app()).status?.deployedRevision, first.metadata!.name);
  });

  it("an Application with no service account (and no default) is refused; nothing is created for it", async () => {
    await admin.request({
      method: "POST",
      path: `${API}/applications`,
      body: {
        apiVersion: API_VERSION,
        kind: "Application",
        metadata: { name: "nobody" },
        spec: { source: { repositoryRef: { name: "shop" }, path: "deploy" } },
      },
    });
    const a = await until("ServiceAccountRequired", async () => {
      const x = await get<Application>(`${API}/applications/nobody`);
      return x.status?.conditions?.find((c) => c.reason === "ServiceAccountRequired") ? x : undefined;
    });
    assert.equal(a.status?.desiredRevision, undefined);
    const revs = await get<{ items: Revision[] }>(`${API}/revisions`);
    assert.ok(revs.items.every((r) => r.spec.applicationRef.name !== "nobody"));
  });
});
