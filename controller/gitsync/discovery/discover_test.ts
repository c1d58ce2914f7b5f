import assert from "node:assert/strict";
import { test } from "node:test";
import { applyPolicy, configPaths, DiscoveryRefused, readConfigs } from "./discover.ts";
import type { Repository } from "../api/mod.ts";

const tree = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));

const repo = (spec: Partial<Repository["spec"]> = {}): Repository => ({
  metadata: { name: "platform", namespace: "shop", uid: "u1" },
  spec: { git: { url: "https://git.example/platform.git" }, ...spec },
});

const refusal = (fn: () => unknown, reason: string, message: RegExp) =>
  assert.throws(fn, (err: Error) => {
    assert.ok(err instanceof DiscoveryRefused, String(err));
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  });

test("one Application or an applications: list per file; the root file unless paths are named", () => {
  assert.deepEqual(configPaths(repo()), [".gitsync.yaml"]);
  assert.deepEqual(configPaths(repo({ applicationConfigPaths: ["teams/a/.gitsync.yaml"] })), [
    "teams/a/.gitsync.yaml",
  ]);
  const apps = readConfigs(
    tree({
      ".gitsync.yaml": "name: web\nspec:\n  source: {path: deploy/web}\n",
      "teams/a/.gitsync.yaml":
        "applications:\n  - name: api\n    spec: {source: {path: deploy/api}}\n  - name: jobs\n    spec: {source: {path: deploy/jobs}}\n",
    }),
    [".gitsync.yaml", "teams/a/.gitsync.yaml", "teams/missing/.gitsync.yaml"],
  );
  assert.deepEqual(apps.map((a) => `${a.file}:${a.name}:${a.spec.source.path}`), [
    ".gitsync.yaml:web:deploy/web",
    "teams/a/.gitsync.yaml:api:deploy/api",
    "teams/a/.gitsync.yaml:jobs:deploy/jobs",
  ]);
});

test("a wrong file is InvalidConfig naming the file and the entry", () => {
  const read = (text: string) => () => readConfigs(tree({ ".gitsync.yaml": text }), [".gitsync.yaml"]);
  refusal(read("name: [unclosed"), "InvalidConfig", /^\.gitsync\.yaml: not YAML/);
  refusal(
    read("- a list"),
    "InvalidConfig",
    /expected an Application \(name, spec\) or an applications: list/,
  );
  refusal(read("name: Web_1\nspec: {source: {}}\n"), "InvalidConfig", /name must be a DNS label/);
  refusal(read("name: web\n"), "InvalidConfig", /applications\[0\] \(web\): spec is missing/);
  refusal(read("name: web\nmetadata: {}\nspec: {source: {}}\n"), "InvalidConfig", /unknown field metadata/);
  refusal(
    read("name: web\nspec: {source: {}, managedKinds: []}\n"),
    "InvalidConfig",
    /spec\.managedKinds may not be set from a \.gitsync\.yaml/,
  );
  refusal(
    () =>
      readConfigs(
        tree({
          ".gitsync.yaml": "name: web\nspec: {source: {}}\n",
          "b/.gitsync.yaml": "name: web\nspec: {source: {}}\n",
        }),
        [".gitsync.yaml", "b/.gitsync.yaml"],
      ),
    "InvalidConfig",
    /b\/\.gitsync\.yaml: Application web is also declared in \.gitsync\.yaml/,
  );
});

test("the policy: each field asked for beyond it is refused by name; the rest is completed", () => {
  const one = (spec: string, r = repo({ applicationServiceAccountName: "deployer" })) => () =>
    applyPolicy(r, readConfigs(tree({ ".gitsync.yaml": `name: web\nspec: ${spec}\n` }), [".gitsync.yaml"]));
  refusal(
    one("{source: {}, sync: {automatic: true}}"),
    "PolicyViolation",
    /Application web: spec\.sync\.automatic is not allowed \(spec\.applicationPolicy\.allowAutomatic\)/,
  );
  refusal(one("{source: {}, sync: {prune: true}}"), "PolicyViolation", /spec\.sync\.prune is not allowed/);
  refusal(
    one("{source: {}, conflictPolicy: adopt}"),
    "PolicyViolation",
    /conflictPolicy: adopt is not allowed/,
  );
  refusal(
    one("{source: {}, serviceAccountName: admin}"),
    "PolicyViolation",
    /must be deployer \(spec\.applicationServiceAccountName\)/,
  );
  refusal(
    one("{source: {}, serviceAccountName: admin}", repo()),
    "PolicyViolation",
    /may not be set: the Repository has no applicationServiceAccountName/,
  );
  refusal(one("{source: {repositoryRef: {name: other}}}"), "PolicyViolation", /names Repository other/);

  const [app] = one("{source: {path: deploy}}")();
  assert.deepEqual(app!.spec, {
    source: { path: "deploy", repositoryRef: { name: "platform" } },
    serviceAccountName: "deployer",
    sync: { prune: false },
  });
  const allowed = repo({
    applicationServiceAccountName: "deployer",
    applicationPolicy: { allowAutomatic: true, allowPrune: true, allowAdopt: true },
  });
  const [free] = one("{source: {}, sync: {automatic: true}, conflictPolicy: adopt}", allowed)();
  assert.deepEqual(free!.spec.sync, { automatic: true, prune: true });
  assert.equal(free!.spec.conflictPolicy, "adopt");
});
