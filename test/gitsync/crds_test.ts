/**
 * dist/gitsync-manager install-crds against kube-apiserver, and what the sync.gitsync.io schemas
 * refuse at admission (seed sections 2, 9): ranges as chart versions, two image policies at once,
 * paths outside the checkout, filesystem Git URLs, misnamed discovery files.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { CRD_DIR, CRD_FILES } from "../../controller/gitsync/crds.ts";
import { KubeClient } from "../../internal/k8s/mod.ts";
import { ASSETS } from "../../scripts/lib/tools.ts";
import { runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { API_VERSION } from "../../controller/gitsync/api/mod.ts";

const KINDS: Record<string, string> = {
  applications: "Application",
  repositories: "Repository",
  imagepolicies: "ImagePolicy",
  notificationsinks: "NotificationSink",
};

it("every CRD file is listed and embedded in gitsync-manager", () => {
  assert.deepEqual(readdirSync(CRD_DIR).sort(), [...CRD_FILES].sort());
  const crds = ASSETS["gitsync-manager"]?.filter((a) => a.startsWith("crds/"));
  assert.deepEqual(crds?.map((a) => a.split("/").pop()).sort(), [...CRD_FILES].sort());
});

describe("gitsync CRDs on kube-apiserver", () => {
  let k8s: KubeApiServer;
  let client: KubeClient;
  const ns = "default";
  const create = (plural: string, name: string, spec: unknown) =>
    client.request({
      method: "POST",
      path: `/apis/${API_VERSION}/namespaces/${ns}/${plural}`,
      body: { apiVersion: API_VERSION, kind: KINDS[plural], metadata: { name }, spec },
    });

  before(async () => {
    k8s = await startKubeApiServer();
    client = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
  });
  after(async () => {
    client?.close();
    await k8s?.stop();
  });

  it("install-crds creates them all and waits until they are served; a second run changes nothing", async () => {
    const env = { KUBECONFIG: k8s.kubeconfigPath };
    const first = await runBinary("gitsync-manager", ["install-crds", "-o", "json"], { env });
    assert.equal(first.code, 0, first.stderr);
    const crds = JSON.parse(first.stdout).crds as {
      name: string;
      kind: string;
      action: string;
      established: boolean;
    }[];
    assert.deepEqual(crds.map((c) => `${c.kind} ${c.action} ${c.established}`).sort(), [
      "Application created true",
      "HealthCheck created true",
      "ImagePolicy created true",
      "NotificationSink created true",
      "Repository created true",
      "Revision created true",
    ]);
    const second = await runBinary("gitsync-manager", ["install-crds"], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^NAME\s+KIND\s+RESULT\s+ESTABLISHED\n/);
    assert.equal(second.stdout.match(/unchanged\s+True/g)?.length, 6);
  });

  it("install-crds against an unreachable cluster fails with one line and exit 1", async () => {
    const r = await runBinary("gitsync-manager", ["install-crds", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  });

  it("accepts well-formed objects and shows them with their printer columns", async () => {
    await create("repositories", "web", {
      git: { url: "git@git.example.com:team/web.git", revision: "main" },
      applicationConfigPaths: [".gitsync.yaml", "teams/a/.gitsync.yaml"],
    });
    await create("applications", "web", {
      source: {
        repositoryRef: { name: "web" },
        path: "deploy/web",
        render: {
          type: "helm",
          helm: { chart: { repository: "oci://charts.example.com/team", name: "web", version: "v1.2.3" } },
        },
      },
    });
    await create("imagepolicies", "web", {
      image: "registry.example.com/web",
      policy: { semver: { range: ">=1.0.0 <2" } },
    });
    const table = await client.request<{ columnDefinitions: { name: string }[] }>({
      path: `/apis/${API_VERSION}/namespaces/${ns}/applications`,
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.deepEqual(table.columnDefinitions.map((c) => c.name), [
      "Name",
      "Source",
      "Deployed",
      "Ready",
      "Automatic",
      "Age",
    ]);
    const app = await client.request<{ spec: { conflictPolicy: string; history: unknown; sync?: unknown } }>({
      path: `/apis/${API_VERSION}/namespaces/${ns}/applications/web`,
    });
    assert.equal(app.spec.conflictPolicy, "fail", "defaults to fail");
  });

  const refusals: [string, string, unknown, RegExp][] = [
    [
      "a chart version range",
      "applications",
      {
        source: {
          repositoryRef: { name: "r" },
          render: {
            type: "helm",
            helm: { chart: { repository: "https://c.example.com", name: "x", version: "^1.2.0" } },
          },
        },
      },
      /spec.source.render.helm.chart.version: Invalid value: "\^1.2.0"/,
    ],
    [
      "a chart repository that is not oci:// or https://",
      "applications",
      {
        source: {
          repositoryRef: { name: "r" },
          render: {
            type: "helm",
            helm: { chart: { repository: "http://c.example.com", name: "x", version: "1.0.0" } },
          },
        },
      },
      /spec.source.render.helm.chart.repository/,
    ],
    [
      "a path out of the checkout",
      "applications",
      { source: { repositoryRef: { name: "r" }, path: "apps/../../etc" } },
      /path must be relative to the repository root and must not contain '..'/,
    ],
    [
      "a values file out of the checkout",
      "applications",
      {
        source: {
          repositoryRef: { name: "r" },
          render: { type: "helm", helm: { valuesFiles: ["/etc/passwd"] } },
        },
      },
      /valuesFiles must lie inside the checkout/,
    ],
    [
      "helm settings without render.type helm",
      "applications",
      { source: { repositoryRef: { name: "r" }, render: { type: "kustomize", helm: {} } } },
      /render.helm is only for render.type helm/,
    ],
    [
      "an unknown conflict policy",
      "applications",
      { source: { repositoryRef: { name: "r" } }, conflictPolicy: "overwrite" },
      /spec.conflictPolicy: Unsupported value: "overwrite"/,
    ],
    [
      "two image policies at once",
      "imagepolicies",
      { image: "r/app", policy: { semver: { range: ">=1" }, digest: { tag: "latest" } } },
      /policy needs exactly one of semver, tagPattern or digest/,
    ],
    [
      "no image policy",
      "imagepolicies",
      { image: "r/app", policy: {} },
      /policy needs exactly one of semver, tagPattern or digest/,
    ],
    [
      "a filesystem Git URL",
      "repositories",
      { git: { url: "file:///srv/repo.git" } },
      /url must be https:\/\/, http:\/\/, ssh:\/\/, git:\/\/ or user@host:path \(filesystem paths are refused\)/,
    ],
    [
      "a bare path as Git URL",
      "repositories",
      { git: { url: "/srv/repo.git" } },
      /filesystem paths are refused/,
    ],
    [
      "a discovery file not named .gitsync.yaml",
      "repositories",
      { git: { url: "https://git.example.com/a.git" }, applicationConfigPaths: ["apps/config.yaml"] },
      /each path must name a .gitsync.yaml file/,
    ],
    [
      "a discovery file outside the repository",
      "repositories",
      { git: { url: "https://git.example.com/a.git" }, applicationConfigPaths: ["../other/.gitsync.yaml"] },
      /each path must be relative and inside the repository/,
    ],
    [
      "the same discovery file twice",
      "repositories",
      {
        git: { url: "https://git.example.com/a.git" },
        applicationConfigPaths: [".gitsync.yaml", ".gitsync.yaml"],
      },
      /Duplicate value/,
    ],
    [
      "a sink of an unknown type",
      "notificationsinks",
      { type: "email", secretRef: { name: "s" } },
      /Unsupported value: "email"/,
    ],
  ];
  for (const [what, plural, spec, message] of refusals) {
    it(`refuses ${what} at admission`, async () => {
      await assert.rejects(create(plural, `bad-${plural}`, spec), (err: Error) => {
        assert.match(err.message, /Error from server \(Invalid\)/);
        assert.match(err.message, message);
        return true;
      });
    });
  }
});
