import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { readLocalTree } from "../source/local_tree.ts";
import { hasKustomization, Kustomize } from "./kustomize.ts";

const CORPUS = fileURLToPath(new URL("../../../test/fixtures/kustomize/", import.meta.url));

async function kubectlKustomize(dir: string): Promise<{ stdout: string } | { error: string }> {
  try {
    const { stdout } = await promisify(execFile)("kubectl", ["kustomize", join(CORPUS, dir)], {
      maxBuffer: 16 << 20,
    });
    return { stdout };
  } catch (err) {
    return { error: String((err as { stderr?: string }).stderr ?? err) };
  }
}

const tree = await readLocalTree(CORPUS);
const warnings: string[] = [];
const kustomize = new Kustomize({ warn: (m, path) => warnings.push(`${path}: ${m}`) });
after(() => kustomize.close());

describe("output equals `kubectl kustomize` (kustomize v5.5.0) on the corpus", () => {
  const cases: [string, string][] = [
    ["base", "resources, labels with selectors, annotations"],
    [
      "overlays/prod",
      "overlay: namespace, prefix and suffix, images (tag, name, digest), replicas, patch file",
    ],
    ["overlays/staging", "JSON6902 from a file, inline JSON patch by target, legacy strategic-merge patch"],
    ["overlays/with-component", "a Component adding a resource and a container"],
    ["generators", "ConfigMap and Secret generators: files, envs, literals, options, hash suffixes"],
    ["replacements", "replacements into list items by key and by index, with create"],
    ["labels", "commonLabels and labels (selectors and templates on and off), multi-line annotations"],
    ["patch-target", "patches selected by label, name regex and annotation"],
    ["crds", "a CRD and its custom resource (lists replaced, no merge keys)"],
    ["namespace-rbac", "namespace on objects and on RoleBinding subjects"],
    ["name-references", "generated names followed into envFrom, volumes, secretKeyRef, HPA and PDB"],
    ["delete-patch", "$patch: delete on an object and list items, $setElementOrder"],
    ["multi-base/frontend", "a base of a base"],
    ["multi-base/all", "two bases combined under a namespace and common labels"],
    ["sort-fifo", "sortOptions fifo keeps input order, keys sorted within objects"],
  ];
  for (const [dir, what] of cases) {
    test(`${dir}: ${what}`, async () => {
      const [ours, theirs] = await Promise.all([kustomize.build(tree, dir), kubectlKustomize(dir)]);
      assert.ok("stdout" in theirs, `kubectl failed on ${dir}: ${"error" in theirs ? theirs.error : ""}`);
      assert.equal(ours, theirs.stdout);
    });
  }
});

describe("what kubectl refuses, and what we refuse further", () => {
  test("a file outside the kustomization's folder is refused, as kubectl refuses it", async () => {
    const theirs = await kubectlKustomize("outside-root/app");
    assert.ok("error" in theirs && /security; file .* is not in or below/.test(theirs.error));
    await assert.rejects(kustomize.build(tree, "outside-root/app"), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(
        err.message,
        /security; file 'outside-root\/secret.txt' is not in or below 'outside-root\/app'/,
      );
      assert.doesNotMatch(err.message, /not for you/);
      return true;
    });
  });

  test("a remote resource is refused without touching the network", async () => {
    await assert.rejects(kustomize.build(tree, "remote-resource"), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(err.message, /remote references are refused \(https:\/\/raw\.githubusercontent\.com/);
      return true;
    });
  });

  test("a remote base is refused", async () => {
    await assert.rejects(kustomize.build(tree, "remote-base"), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(err.message, /remote bases are refused/);
      return true;
    });
  });

  test("a kustomization with helmCharts is refused: the Helm renderer is spec.source.render.helm", async () => {
    const t = new Map(tree);
    t.set(
      "helm/kustomization.yaml",
      new TextEncoder().encode("helmCharts:\n  - name: nginx\n    repo: https://charts.example.com\n"),
    );
    await assert.rejects(kustomize.build(t, "helm"), /must specify --enable-helm/);
  });

  test("a path without a kustomization fails with Kustomize's message", async () => {
    await assert.rejects(kustomize.build(tree, "nowhere"), /'nowhere' doesn't exist/);
  });
});

test("render gives objects; Kustomize's warnings go to the warn option, never to stdout", async () => {
  warnings.length = 0;
  const objects = await kustomize.render(tree, "./overlays/staging/");
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata?.namespace}/${o.metadata?.name}`), [
    "Service/staging/web",
    "Deployment/staging/web",
  ]);
  assert.deepEqual(warnings, [
    "overlays/staging: 'patchesJson6902' is deprecated. Please use 'patches' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
    "overlays/staging: 'patchesStrategicMerge' is deprecated. Please use 'patches' instead. Run 'kustomize edit fix' to update your Kustomization automatically.",
  ]);
});

test("hasKustomization finds each of Kustomize's file names at the path, and only there", () => {
  const t = (name: string) => new Map([[name, new Uint8Array()]]);
  assert.ok(hasKustomization(t("apps/kustomization.yaml"), "apps"));
  assert.ok(hasKustomization(t("apps/kustomization.yml"), "./apps/"));
  assert.ok(hasKustomization(t("apps/Kustomization"), "apps"));
  assert.ok(hasKustomization(t("kustomization.yaml"), ""));
  assert.ok(!hasKustomization(t("apps/sub/kustomization.yaml"), "apps"));
  assert.ok(!hasKustomization(t("apps/deploy.yaml"), "apps"));
});

test("a build that runs too long fails, and its worker is stopped", async () => {
  const slow = new Kustomize({ timeoutMs: 1 });
  try {
    await assert.rejects(slow.build(tree, "base"), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(err.message, /kustomize build took longer than 0.001 s/);
      return true;
    });
    // A second build starts a new worker (and times out the same way), rather than waiting on the old one.
    await assert.rejects(slow.build(tree, "base"), /took longer than/);
  } finally {
    slow.close();
  }
});
