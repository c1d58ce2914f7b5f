/**
 * `dist/gitsync-manager render --render helm`: the embedded Helm engine through the binary, from any
 * directory — a chart committed to a real Git server over HTTP, values files from the checkout, output
 * equal to the pinned `helm template`, Helm hooks as gitsync hooks, Secrets redacted.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { HELM } from "../../scripts/testenv/servers.ts";
import { ROOT, runBinary } from "../harness/binary.ts";
import { type GitHttpServer, startGitHttpServer } from "../harness/git_server.ts";
import { startRegistry } from "../harness/registry.ts";

const CORPUS = `${ROOT}/test/fixtures/helm`;
const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean);
const render = (args: string[]) =>
  runBinary("gitsync-manager", ["render", ...args], { cwd: "/", timeoutMs: 60_000 });

async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const full = join(e.parentPath, e.name);
    out[relative(dir, full)] = await readFile(full, "utf8");
  }
  return out;
}

describe("gitsync-manager render --render helm", () => {
  let git: GitHttpServer;
  before(async () => {
    git = await startGitHttpServer();
  });
  after(() => git?.stop());

  it("renders a chart committed to Git with a values file, as helm template does, hooks mapped", async () => {
    const helm = cachedBinary(HELM);
    assert.ok(helm, "the pinned helm binary is missing: run `deno task testenv:build helm`");
    const chart = await filesOf(`${CORPUS}/webapp`);
    const repo = await git.createRepo("charts", {
      ...Object.fromEntries(Object.entries(chart).map(([p, c]) => [`charts/webapp/${p}`, c])),
      "env/prod.yaml": "replicaCount: 9\nextraLabels: {tier: gold}\n",
    });
    const r = await render([
      "--repository",
      repo.url,
      "--path",
      "charts/webapp",
      "--render",
      "helm",
      "--values-file",
      "../../env/prod.yaml",
      "--release-name",
      "shop",
      "--namespace",
      "team",
      "--kube-version",
      "1.31.0",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /rendered 7 object\(s\) with Helm/);
    const { stdout } = await promisify(execFile)(helm, [
      "template",
      "shop",
      `${CORPUS}/webapp`,
      "-n",
      "team",
      "--kube-version",
      "1.31.0",
      "--include-crds",
      "--skip-tests",
      "--set",
      "replicaCount=9,extraLabels.tier=gold",
    ], { env: { HOME: "/nonexistent", PATH: "/usr/bin:/bin" } });
    const theirs = docs(stdout).map((o) => {
      const a = o.metadata?.annotations;
      if (a?.["helm.sh/hook"]) {
        const { ["helm.sh/hook"]: hook, ...rest } = a;
        o.metadata.annotations = {
          ...rest,
          "sync.gitsync.io/hook": hook.startsWith("pre-") ? "pre-sync" : "post-sync",
        };
      }
      return o;
    });
    assert.deepEqual(docs(r.stdout), theirs);
    const deployment = docs(r.stdout).find((o) => o.kind === "Deployment");
    assert.equal(deployment.spec.replicas, 9);
    assert.equal(deployment.metadata.labels.tier, "gold");
  });

  it("redacts Secrets, refuses values files outside the checkout and unvendored dependencies", async () => {
    const repo = await git.createRepo("secret-chart", {
      "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
      "c/values.yaml": "password: hunter2\n",
      "c/templates/s.yaml":
        "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: {{ .Values.password }}\n",
      "u/Chart.yaml": (await filesOf(`${CORPUS}/unvendored`))["Chart.yaml"]!,
      "u/Chart.lock": (await filesOf(`${CORPUS}/unvendored`))["Chart.lock"]!,
    });
    const ok = await render(["--repository", repo.url, "--path", "c", "--render", "helm"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stdout + ok.stderr, /hunter2/);
    assert.deepEqual(docs(ok.stdout)[0].stringData, { password: "REDACTED" });

    const outside = await render([
      "--repository",
      repo.url,
      "--path",
      "c",
      "--render",
      "helm",
      "--values-file",
      "../../../outside.yaml",
    ]);
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /valuesFiles \.\.\/\.\.\/\.\.\/outside.yaml: must lie inside the checkout/);

    const unvendored = await render(["--repository", repo.url, "--path", "u", "--render", "helm"]);
    assert.equal(unvendored.code, 1);
    assert.match(unvendored.stderr, /Chart.lock but no charts\/ folder: dependencies must be vendored/);
  });

  it("renders a chart pulled from an OCI registry (the real CNCF registry), values from the checkout", async () => {
    const helm = cachedBinary(HELM);
    assert.ok(helm, "the pinned helm binary is missing: run `deno task testenv:build helm`");
    const dir = await mkdtemp(join(tmpdir(), "helm-render-oci-"));
    const registry = await startRegistry();
    try {
      await promisify(execFile)(helm, ["package", `${CORPUS}/umbrella`, "-d", dir], {
        env: { HOME: dir, PATH: "/usr/bin:/bin" },
      });
      const tgz = await readFile(join(dir, "umbrella-0.3.0.tgz"));
      await registry.pushHelmChart("charts/umbrella", "0.3.0", tgz, {
        apiVersion: "v2",
        name: "umbrella",
        version: "0.3.0",
      });
      const repo = await git.createRepo("oci-values", { "env/values.yaml": "cache:\n  enabled: true\n" });
      const r = await render([
        "--repository",
        repo.url,
        "--render",
        "helm",
        "--chart-repository",
        `oci://${registry.host}/charts`,
        "--chart",
        "umbrella",
        "--chart-version",
        "v0.3.0",
        "--values-file",
        "env/values.yaml",
        "--release-name",
        "rel",
        "-o",
        "table",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /StatefulSet\s+<none>\s+rel-cache/);
      assert.match(r.stdout, /Deployment\s+<none>\s+rel-backend-api/);
      assert.ok(registry.tokenRequests.granted > 0, "pulled through the registry's token service");

      const missing = await render([
        "--repository",
        repo.url,
        "--render",
        "helm",
        "--chart-repository",
        `oci://${registry.host}/charts`,
        "--chart",
        "umbrella",
        "--chart-version",
        "9.9.9",
      ]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /umbrella:9.9.9 does not exist/);
    } finally {
      await registry.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
