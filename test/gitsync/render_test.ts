/**
 * `dist/gitsync-manager render`: the controller's renderers through the binary, from any directory —
 * Kustomize from the embedded wasm module in its worker, plain YAML, a real Git server over HTTP, and the
 * controller's redaction on everything printed.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { ROOT, runBinary } from "../harness/binary.ts";
import { type GitHttpServer, startGitHttpServer } from "../harness/git_server.ts";

const CORPUS = `${ROOT}/test/fixtures/kustomize`;
const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS());
const render = (args: string[]) =>
  runBinary("gitsync-manager", ["render", ...args], { cwd: "/", timeoutMs: 60_000 });

describe("gitsync-manager render", () => {
  let git: GitHttpServer;
  before(async () => {
    git = await startGitHttpServer();
  });
  after(() => git?.stop());

  it("renders a Kustomize overlay of a local folder with the embedded Kustomize, equal to kubectl kustomize", async () => {
    const r = await render(["--repository", CORPUS, "--path", "overlays/prod"]);
    assert.equal(r.code, 0, r.stderr);
    const { stdout } = await promisify(execFile)("kubectl", ["kustomize", `${CORPUS}/overlays/prod`]);
    assert.deepEqual(docs(r.stdout), docs(stdout));
    assert.match(r.stderr, /rendered 2 object\(s\) with Kustomize/);
  });

  it("renders a commit of a Git repository over HTTP, detecting the renderer per path, secrets redacted", async () => {
    const repo = await git.createRepo("app", {
      "deploy/base/kustomization.yaml":
        "resources: [cm.yaml]\nsecretGenerator:\n- name: db\n  literals: [password=hunter2]\n",
      "deploy/base/cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n  url: https://bob:tok3n@db.example.com/x\n  app.ini: |\n    db_password = hunter2\n    enabled: yes\n",
      "deploy/prod/kustomization.yaml":
        "resources: [../base]\nnamePrefix: prod-\ncommonLabels: {env: prod}\n",
      "plain/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {on: 'yes'}\n",
    });
    const r = await render(["--repository", repo.url, "--path", "deploy/prod"]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2|tok3n|aHVudGVyMg/, "no secret reaches the output");
    const objects = docs(r.stdout);
    assert.deepEqual(objects.map((o) => o.kind), ["ConfigMap", "Secret"]);
    assert.equal(objects[0].metadata.name, "prod-app");
    assert.match(
      objects[1].metadata.name,
      /^prod-db-[a-z0-9]{10}$/,
      "the generated name keeps its hash suffix",
    );
    assert.equal(objects[0].data.url, "https://REDACTED@db.example.com/x");
    assert.equal(objects[0].data["app.ini"], "db_password = REDACTED\nenabled: yes\n");
    assert.deepEqual(objects[1].data, { password: "REDACTED" });
    assert.match(r.stderr, /warning: kustomize deploy\/prod: 'commonLabels' is deprecated/);

    const plain = await render(["--repository", repo.url, "--path", "plain", "-o", "json"]);
    assert.equal(plain.code, 0, plain.stderr);
    const list = JSON.parse(plain.stdout);
    assert.equal(list.kind, "List");
    assert.deepEqual(list.items[0].data, { on: "yes" });
    assert.match(plain.stderr, /with plain YAML/);

    const forced = await render([
      "--repository",
      repo.url,
      "--path",
      "deploy/base",
      "--render",
      "yaml",
      "-o",
      "table",
    ]);
    assert.equal(forced.code, 1, "plain YAML of a kustomization folder: kustomization.yaml is no object");
    assert.match(forced.stderr, /deploy\/base\/kustomization.yaml: document 1 has no apiVersion or kind/);
  });

  it("refuses a commit whose symlink leaves the repository, and a remote base", async () => {
    const repo = await git.createRepo("links", {
      "k/kustomization.yaml": "resources: [cm.yaml]\n",
      "k/cm.yaml": "symlink:../../../etc/passwd",
    });
    const linked = await render(["--repository", repo.url, "--path", "k"]);
    assert.equal(linked.code, 1);
    assert.match(
      linked.stderr,
      /symlink k\/cm.yaml -> \.\.\/\.\.\/\.\.\/etc\/passwd resolves outside the checkout/,
    );
    const remoteBase = await git.createRepo("remote-base", {
      "r/kustomization.yaml": "resources:\n- github.com/org/repo//base?ref=v1\n",
    });
    const remote = await render(["--repository", remoteBase.url, "--path", "r"]);
    assert.equal(remote.code, 1);
    assert.match(remote.stderr, /remote bases are refused/);
  });

  it("says what is wrong with bad input, before touching the network", async () => {
    for (
      const [args, message] of [
        [["--repository", "/does/not/exist"], /no such folder/],
        [["--repository", "file:///etc"], /file: scheme is not allowed/],
        [
          ["--repository", "ssh://git@example.com/r.git"],
          /ssh needs a key and known_hosts, which render does not take/,
        ],
        [["--repository", CORPUS, "--render", "jsonnet"], /argument 'jsonnet' is invalid/],
        [
          ["--repository", CORPUS, "--values-file", "v.yaml"],
          /--values-file and --chart\* are for --render helm/,
        ],
        [["--path", "x"], /required option '--repository <dir\|url>' not specified/],
      ] as const
    ) {
      const r = await render([...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    const help = await render(["--help"]);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /Examples:[\s\S]*gitsync-manager render --repository \. --path deploy\/overlays\/prod/,
    );
  });
});
