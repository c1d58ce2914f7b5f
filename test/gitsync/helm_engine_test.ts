/**
 * Helm through the controller as users run it: the compiled `gitsync-manager run` with the RBAC of
 * deploy/gitsync/install.yaml, a real kube-apiserver, a real Git server and the real CNCF registry.
 * An Application with render.type helm deploys a chart from Git with its values merged in the seed's
 * order (chart < valuesFiles < valuesFrom read as the service account < values), `lookup` answered as the
 * service account, the cluster's version as .Capabilities.KubeVersion, Helm's pre-install hook run as a
 * pre-sync hook; a chart from an OCI registry with
 * credentials from a labelled Secret deploys too; a chart with a Helm delete hook fails with
 * ValidationFailure.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { loadCrds } from "../../controller/gitsync/crds.ts";
import { freePort } from "../harness/ports.ts";
import { applyObject, installCrds, KubeClient, parseManifests } from "../../internal/k8s/mod.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { HELM } from "../../scripts/testenv/servers.ts";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { type GitHttpServer, startGitHttpServer } from "../harness/git_server.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { createNamespace, serviceAccountWithRole, writeTokenKubeconfig } from "../harness/k8s_fixtures.ts";
import { startRegistry, type TestRegistry } from "../harness/registry.ts";
import { servingCertificate } from "../harness/serving_cert.ts";
import { untilWithLog } from "../harness/until.ts";
import { API_VERSION, type Application, type Revision } from "../../controller/gitsync/api/mod.ts";

const NS = "charts";
const API = `/apis/${API_VERSION}/namespaces/${NS}`;

const chart = (hook: string) => ({
  "deploy/chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
  "deploy/chart/values.yaml": "color: none\nsize: s\nfrom: chart\nowner: chart\n",
  "deploy/chart/templates/cm.yaml": [
    `{{- $settings := lookup "v1" "ConfigMap" .Release.Namespace "cluster-settings" }}`,
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-settings",
    "data:",
    "  color: {{ .Values.color }}",
    "  size: {{ .Values.size }}",
    "  from: {{ .Values.from }}",
    "  owner: {{ .Values.owner }}",
    `  mode: {{ dig "data" "mode" "unknown" $settings | quote }}`,
    "  kube: {{ .Capabilities.KubeVersion.Version }}",
    "",
  ].join("\n"),
  "deploy/chart/templates/hook.yaml":
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    helm.sh/hook: ${hook}\ndata:\n  ran: "yes"\n`,
  "deploy/chart/env/prod.yaml": "from: valuesFile\nowner: valuesFile\n",
});

describe("Helm Applications through gitsync-manager run", () => {
  let k8s: KubeApiServer;
  let git: GitHttpServer;
  let registry: TestRegistry;
  let admin: KubeClient;
  let manager: RunningBinary;
  let dir: string;

  const get = <T>(path: string) => admin.request<T>({ path });
  const until = untilWithLog(() => manager.output());
  const create = (path: string, body: unknown) => admin.request({ method: "POST", path, body });
  const createApplication = (name: string, spec: Record<string, unknown>) =>
    create(`${API}/applications`, { apiVersion: API_VERSION, kind: "Application", metadata: { name }, spec });
  const revisionOf = async (name: string) => {
    const a = await get<Application>(`${API}/applications/${name}`);
    return a.status?.desiredRevision
      ? await get<Revision>(`${API}/revisions/${a.status.desiredRevision}`)
      : undefined;
  };

  before(async () => {
    const helm = cachedBinary(HELM);
    assert.ok(helm, "the pinned helm binary is missing: run `deno task testenv:build helm`");
    [k8s, git, registry] = await Promise.all([
      startKubeApiServer(),
      startGitHttpServer(),
      startRegistry({ users: { puller: "pu11" } }),
    ]);
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    dir = await mkdtemp(join(tmpdir(), "gitsync-helm-engine-"));
    await installCrds(admin, await loadCrds(), { fieldManager: "test", timeoutMs: 30_000 });
    await createNamespace(admin, NS);
    (await serviceAccountWithRole(admin, NS, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    ])).close();
    await create(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: "web-values" },
      data: { "values.yaml": "color: teal\nowner: valuesFrom\n" },
    });
    await create(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: "cluster-settings" },
      data: { mode: "fast" },
    });

    // A chart in the registry, pushed as `helm push` lays it out; pulled with a labelled Secret.
    const src = join(dir, "oci-chart");
    await mkdir(join(src, "templates"), { recursive: true });
    await writeFile(join(src, "Chart.yaml"), "apiVersion: v2\nname: tiny\nversion: 2.1.0\n");
    await writeFile(join(src, "values.yaml"), "greeting: hello\n");
    await writeFile(
      join(src, "templates", "cm.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-tiny\ndata:\n  greeting: {{ .Values.greeting }}\n",
    );
    await promisify(execFile)(helm, ["package", src, "-d", dir], {
      env: { HOME: dir, PATH: "/usr/bin:/bin" },
    });
    await registry.pushHelmChart("charts/tiny", "2.1.0", await readFile(join(dir, "tiny-2.1.0.tgz")), {
      apiVersion: "v2",
      name: "tiny",
      version: "2.1.0",
    });
    await create(`/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: "registry", labels: { "sync.gitsync.io/registry-credentials": "true" } },
      stringData: { username: "puller", password: "pu11" },
    });

    // The manager as install.yaml's service account.
    for (
      const m of parseManifests(
        await readFile(join(ROOT, "deploy/gitsync/install.yaml"), "utf8"),
        "install.yaml",
      )
    ) {
      if (
        ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"].includes(
          m.object.kind!,
        )
      ) {
        await applyObject(admin, m.object, { serverSide: true, fieldManager: "test" });
      }
    }
    const token = (await admin.request<{ status: { token: string } }>({
      method: "POST",
      path: "/api/v1/namespaces/gitsync-system/serviceaccounts/gitsync-manager/token",
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      },
    })).status.token;
    // The webhook and metrics serving certificate the manager reads from --*-cert-path.
    await servingCertificate(dir, "gitsync-webhook");
    const kubeconfig = await writeTokenKubeconfig(join(dir, "controller.kubeconfig"), k8s, token);
    manager = await startBinary("gitsync-manager", [
      "run",
      "--kubeconfig",
      kubeconfig,
      "--health-probe-bind-address",
      "127.0.0.1:0",
      "--webhook-bind-address",
      `127.0.0.1:${await freePort()}`,
      "--webhook-cert-path",
      dir,
      "--cache-dir",
      dir,
      "--metrics-bind-address",
      "127.0.0.1:0",
      "--metrics-cert-path",
      dir,
    ], { readyPath: "/readyz" });

    const repo = await git.createRepo("charts", chart("pre-install,pre-upgrade"));
    const bad = await git.createRepo("bad", chart("pre-delete"));
    for (const [name, url] of [["charts", repo.url], ["bad", bad.url]]) {
      await create(`${API}/repositories`, {
        apiVersion: API_VERSION,
        kind: "Repository",
        metadata: { name },
        spec: { git: { url }, pollInterval: "2s" },
      });
    }
  });

  after(async () => {
    await manager?.stop();
    admin?.close();
    await Promise.all([k8s?.stop(), git?.stop(), registry?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("deploys a chart from Git: values merged in order, lookup as the service account, the hook pre-sync", async () => {
    await createApplication("web", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: {
        repositoryRef: { name: "charts" },
        path: "deploy/chart",
        render: {
          type: "helm",
          helm: {
            valuesFiles: ["env/prod.yaml"],
            valuesFrom: [{ kind: "ConfigMap", name: "web-values" }],
            values: { size: "xl" },
          },
        },
      },
    });
    await until("web deployed", async () => {
      const rev = await revisionOf("web");
      if (rev?.status?.phase === "Failed") throw new Error(JSON.stringify(rev.status.failure));
      return rev?.status?.phase === "Healthy" ? rev : undefined;
    });
    const cm = await get<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(
      `/api/v1/namespaces/${NS}/configmaps/web-settings`,
    );
    // .Capabilities.KubeVersion is the cluster's, as `helm install` sees it.
    const { gitVersion } = await get<{ gitVersion: string }>("/version");
    assert.deepEqual(cm.data, {
      color: "teal",
      size: "xl",
      from: "valuesFile",
      owner: "valuesFrom",
      mode: "fast",
      kube: gitVersion.replace(/[+].*$/, ""),
    });
    const hook = await get<{ metadata: { annotations?: Record<string, string> } }>(
      `/api/v1/namespaces/${NS}/configmaps/web-hook`,
    );
    assert.equal(hook.metadata.annotations?.["sync.gitsync.io/hook"], "pre-sync");
    assert.equal(hook.metadata.annotations?.["helm.sh/hook"], undefined);
  });

  it("deploys a chart from an OCI registry with credentials from a labelled Secret", async () => {
    await createApplication("tiny", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: {
        repositoryRef: { name: "charts" },
        render: {
          type: "helm",
          helm: {
            chart: {
              repository: `oci://${registry.host}/charts`,
              name: "tiny",
              version: "v2.1.0",
              secretRef: { name: "registry" },
            },
            values: { greeting: "hi" },
          },
        },
      },
    });
    await until("tiny deployed", async () => {
      const rev = await revisionOf("tiny");
      if (rev?.status?.phase === "Failed") throw new Error(JSON.stringify(rev.status.failure));
      return rev?.status?.phase === "Healthy" ? rev : undefined;
    });
    const cm = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/tiny-tiny`);
    assert.deepEqual(cm.data, { greeting: "hi" });
  });

  it("a Helm delete hook fails the Revision with ValidationFailure, nothing applied", async () => {
    await createApplication("bad", {
      serviceAccountName: "deployer",
      sync: { automatic: true },
      source: { repositoryRef: { name: "bad" }, path: "deploy/chart", render: { type: "helm", helm: {} } },
    });
    const failure = await until("bad Failed", async () => {
      const rev = await revisionOf("bad");
      return rev?.status?.phase === "Failed" ? rev.status.failure : undefined;
    });
    assert.equal(failure!.reason, "ValidationFailure");
    assert.match(failure!.message, /Helm hook "pre-delete" is not supported/);
    await assert.rejects(get(`/api/v1/namespaces/${NS}/configmaps/bad-settings`), /not found/);
  });
});
