import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cachedBinary } from "../../../scripts/testenv/go_build.ts";
import { HELM } from "../../../scripts/testenv/servers.ts";
import { readLocalTree } from "../source/local_tree.ts";
import { Helm, type HelmTemplateInput } from "./helm.ts";

const CORPUS = fileURLToPath(new URL("../../../test/fixtures/helm/", import.meta.url));
const KUBE = "1.34.0";

const helmBinary = cachedBinary(HELM);
const tree = await readLocalTree(CORPUS);
const helm = new Helm();
after(() => helm.close());

/** The files of one corpus chart, relative to its root. */
function chart(name: string): Map<string, Uint8Array> {
  const prefix = `${name}/`;
  return new Map(
    [...tree].filter(([p]) => p.startsWith(prefix)).map(([p, b]) => [p.slice(prefix.length), b]),
  );
}

async function helmTemplate(args: string[]): Promise<{ stdout: string } | { error: string }> {
  if (!helmBinary) {
    throw new Error("the pinned helm binary is missing: run `deno task testenv:build helm`");
  }
  try {
    const { stdout } = await promisify(execFile)(helmBinary, ["template", ...args], {
      cwd: CORPUS,
      maxBuffer: 16 << 20,
      env: { HOME: "/nonexistent", PATH: "/usr/bin:/bin" },
    });
    return { stdout };
  } catch (err) {
    return { error: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const text = (path: string) => new TextDecoder().decode(tree.get(path));

describe("output equals `helm template --include-crds --skip-tests` (helm v3.16.4) on the corpus", () => {
  const cases: { name: string; what: string; input: HelmTemplateInput; args: string[] }[] = [
    {
      name: "webapp",
      what:
        "helpers (define/include), range/with, tpl, Capabilities, .Files.Get/Glob, crds/, hooks, NOTES and tests dropped, .helmignore",
      input: { chart: chart("webapp"), releaseName: "shop", namespace: "apps", kubeVersion: KUBE },
      args: ["shop", "webapp", "-n", "apps", "--kube-version", KUBE],
    },
    {
      name: "webapp",
      what: "a values file over the defaults (null deletes a key), upgrade, another Kubernetes version",
      input: {
        chart: chart("webapp"),
        values: [text("webapp/ci/prod-values.yaml"), "replicaCount: 7\nimage:\n  pullPolicy: Always\n"],
        releaseName: "shop",
        namespace: "prod",
        isUpgrade: true,
        kubeVersion: "1.29.3",
      },
      args: [
        "shop",
        "webapp",
        "-n",
        "prod",
        "--is-upgrade",
        "--kube-version",
        "1.29.3",
        "-f",
        "webapp/ci/prod-values.yaml",
        "--set",
        "replicaCount=7,image.pullPolicy=Always",
      ],
    },
    {
      name: "umbrella",
      what: "vendored subcharts with global values, an alias, a disabled condition, a library chart",
      input: { chart: chart("umbrella"), releaseName: "rel", namespace: "apps", kubeVersion: KUBE },
      args: ["rel", "umbrella", "-n", "apps", "--kube-version", KUBE],
    },
    {
      name: "umbrella",
      what: "a condition switched on by values",
      input: {
        chart: chart("umbrella"),
        values: ["cache:\n  enabled: true\nglobal:\n  environment: prod\n"],
        releaseName: "rel",
        namespace: "apps",
        kubeVersion: KUBE,
      },
      args: [
        "rel",
        "umbrella",
        "-n",
        "apps",
        "--kube-version",
        KUBE,
        "--set",
        "cache.enabled=true,global.environment=prod",
      ],
    },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.what}`, async () => {
      const [ours, theirs] = await Promise.all([
        helm.template(c.input),
        helmTemplate([...c.args, "--include-crds", "--skip-tests"]),
      ]);
      assert.ok("stdout" in theirs, `helm failed on ${c.name}: ${"error" in theirs ? theirs.error : ""}`);
      assert.equal(ours, theirs.stdout);
    });
  }
});

test("a dependency vendored as charts/<name>-<version>.tgz (what `helm dependency build` writes)", async () => {
  const dir = await mkdtemp(join(tmpdir(), "helm-tgz-dep-"));
  try {
    // The umbrella chart with its backend subchart packaged by the pinned helm instead of a folder.
    await cp(join(CORPUS, "umbrella"), join(dir, "umbrella"), { recursive: true });
    await rm(join(dir, "umbrella/charts/backend"), { recursive: true });
    await promisify(execFile)(helmBinary!, [
      "package",
      join(CORPUS, "umbrella/charts/backend"),
      "-d",
      join(dir, "umbrella/charts"),
    ], { env: { HOME: dir, PATH: "/usr/bin:/bin" } });
    const files = await readLocalTree(join(dir, "umbrella"));
    assert.ok(files.has("charts/backend-0.2.0.tgz"));
    const { stdout } = await promisify(execFile)(helmBinary!, [
      "template",
      "rel",
      join(dir, "umbrella"),
      "-n",
      "apps",
      "--kube-version",
      KUBE,
      "--include-crds",
      "--skip-tests",
    ], { env: { HOME: dir, PATH: "/usr/bin:/bin" } });
    const ours = await helm.template({
      chart: files,
      releaseName: "rel",
      namespace: "apps",
      kubeVersion: KUBE,
    });
    assert.equal(ours, stdout);
    assert.match(ours, /rel-worker-worker/, "the alias of the packaged chart renders too");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

describe("failures say what Helm says", () => {
  test("required: Helm's error text with the template position", async () => {
    const theirs = await helmTemplate(["rel", "required", "--kube-version", KUBE]);
    assert.ok("error" in theirs);
    // helm's CLI adds a hint about --debug after the engine's message.
    const message = theirs.error.trim().replace(/^Error: /, "").replace(/\n\nUse --debug flag.*$/s, "");
    assert.match(message, /auth.password is required/);
    await assert.rejects(
      helm.template({
        chart: chart("required"),
        releaseName: "rel",
        namespace: "default",
        kubeVersion: KUBE,
      }),
      (err: Error) => {
        assert.equal(err.name, "RenderFailure");
        assert.equal(err.message, `helm template: ${message}`);
        return true;
      },
    );
  });

  test("a chart's kubeVersion constraint is checked against the Kubernetes version", async () => {
    await assert.rejects(
      helm.template({ chart: chart("webapp"), releaseName: "a", namespace: "b", kubeVersion: "1.24.0" }),
      /chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.0/,
    );
  });

  test("a Chart.lock without charts/ is refused: dependencies must be vendored", async () => {
    await assert.rejects(
      helm.template({ chart: chart("unvendored"), releaseName: "a", namespace: "b" }),
      (err: Error) => {
        assert.equal(err.name, "RenderFailure");
        assert.match(err.message, /Chart.lock but no charts\/ folder: dependencies must be vendored/);
        return true;
      },
    );
    // Without the lock file Helm's own check names the missing chart.
    const noLock = chart("unvendored");
    noLock.delete("Chart.lock");
    await assert.rejects(
      helm.template({ chart: noLock, releaseName: "a", namespace: "b" }),
      /chart dependencies are not vendored: found in Chart.yaml, but missing in charts\/ directory: postgresql/,
    );
  });

  test("a folder without Chart.yaml is refused", async () => {
    await assert.rejects(
      helm.template({
        chart: new Map([["values.yaml", new Uint8Array()]]),
        releaseName: "a",
        namespace: "b",
      }),
      /no Chart.yaml at the chart's path/,
    );
  });

  test("a library chart is not installable", async () => {
    await assert.rejects(
      helm.template({ chart: chart("umbrella/charts/common"), releaseName: "a", namespace: "b" }),
      /library charts are not installable/,
    );
  });
});

describe("render: objects with Helm's hooks as gitsync hooks", () => {
  test("pre-install,pre-upgrade => pre-sync, post-install,post-upgrade => post-sync, tests and NOTES dropped", async () => {
    const objects = await helm.render({ chart: chart("webapp"), releaseName: "shop", namespace: "apps" });
    const byName = new Map(objects.map((o) => [`${o.kind}/${o.metadata?.name}`, o]));
    assert.equal(
      byName.get("Job/shop-webapp-migrate")?.metadata?.annotations?.["sync.gitsync.io/hook"],
      "pre-sync",
    );
    assert.equal(byName.get("Job/shop-webapp-migrate")?.metadata?.annotations?.["helm.sh/hook"], undefined);
    assert.equal(
      byName.get("Job/shop-webapp-notify")?.metadata?.annotations?.["sync.gitsync.io/hook"],
      "post-sync",
    );
    assert.ok(!byName.has("Pod/shop-webapp-test-connection"));
    assert.deepEqual([...byName.keys()], [
      "CustomResourceDefinition/widgets.example.com",
      "ConfigMap/shop-webapp",
      "Service/shop-webapp",
      "Deployment/shop-webapp",
      "Ingress/shop-webapp",
      "Job/shop-webapp-migrate",
      "Job/shop-webapp-notify",
    ]);
  });

  test("other Helm hooks are refused (ValidationFailure)", async () => {
    for (const hook of ["pre-delete", "post-rollback", "pre-install,post-install", "pre-rollback"]) {
      const c = chart("required");
      c.set(
        "templates/secret.yaml",
        new TextEncoder().encode(
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n  annotations:\n    helm.sh/hook: ${hook}\n`,
        ),
      );
      await assert.rejects(helm.render({ chart: c, releaseName: "a", namespace: "b" }), (err: Error) => {
        assert.equal(err.name, "ValidationFailure");
        assert.match(err.message, new RegExp(`ConfigMap/h: Helm hook "${hook}" is not supported`));
        return true;
      });
    }
  });
});

describe("lookup", () => {
  const lookupChart = () => {
    const c = chart("required");
    c.set(
      "templates/secret.yaml",
      new TextEncoder().encode(
        [
          `{{- $cm := lookup "v1" "ConfigMap" .Release.Namespace "settings" }}`,
          `apiVersion: v1`,
          `kind: ConfigMap`,
          `metadata:`,
          `  name: copy`,
          `data:`,
          `  color: {{ dig "data" "color" "none" $cm | quote }}`,
        ].join("\n"),
      ),
    );
    return c;
  };

  test("without a lookup callback, lookup finds nothing (as `helm template`)", async () => {
    const out = await helm.template({ chart: lookupChart(), releaseName: "a", namespace: "b" });
    assert.match(out, /color: "none"/);
  });

  test("with a callback, Helm's GETs (discovery, then get) are answered by it", async () => {
    const paths: string[] = [];
    const out = await helm.template({
      chart: lookupChart(),
      releaseName: "a",
      namespace: "team",
      lookup: (path) => {
        paths.push(path);
        if (path.startsWith("/api/v1/namespaces/team/configmaps/settings")) {
          return Promise.resolve({
            status: 200,
            body: JSON.stringify({
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "settings", namespace: "team" },
              data: { color: "teal" },
            }),
          });
        }
        if (path.split("?")[0] === "/api/v1") {
          return Promise.resolve({
            status: 200,
            body: JSON.stringify({
              kind: "APIResourceList",
              groupVersion: "v1",
              resources: [{
                name: "configmaps",
                namespaced: true,
                kind: "ConfigMap",
                verbs: ["get", "list"],
              }],
            }),
          });
        }
        return Promise.resolve({ status: 404, body: "{}" });
      },
    });
    assert.match(out, /color: "teal"/);
    assert.deepEqual(paths.map((p) => p.split("?")[0]), [
      "/api/v1",
      "/api/v1/namespaces/team/configmaps/settings",
    ]);
  });

  test("a missing object is an empty result; a failing callback fails the render", async () => {
    const missing = await helm.template({
      chart: lookupChart(),
      releaseName: "a",
      namespace: "b",
      lookup: (path) =>
        Promise.resolve(
          path.split("?")[0] === "/api/v1"
            ? {
              status: 200,
              body: JSON.stringify({
                kind: "APIResourceList",
                groupVersion: "v1",
                resources: [{ name: "configmaps", namespaced: true, kind: "ConfigMap", verbs: ["get"] }],
              }),
            }
            : {
              status: 404,
              body: JSON.stringify({
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                reason: "NotFound",
                code: 404,
              }),
            },
        ),
    });
    assert.match(missing, /color: "none"/);
    await assert.rejects(
      helm.template({
        chart: lookupChart(),
        releaseName: "a",
        namespace: "b",
        lookup: () => Promise.reject(new Error("forbidden for the service account")),
      }),
      /forbidden for the service account/,
    );
  });
});

test("a render that runs too long fails, and its worker is stopped", async () => {
  const slow = new Helm({ timeoutMs: 1 });
  try {
    await assert.rejects(
      slow.template({ chart: chart("webapp"), releaseName: "a", namespace: "b" }),
      /helm template took longer than 0.001 s/,
    );
  } finally {
    slow.close();
  }
});

test("the corpus folder is read the way the controller reads a checkout", () => {
  assert.ok(
    tree.has(join("webapp", "templates", "scratch.yaml.bak")),
    ".helmignore'd file present in the tree",
  );
});
