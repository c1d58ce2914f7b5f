import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { KubeconfigError } from "./errors.ts";
import { kubeconfigFiles, loadKubeconfig } from "./kubeconfig.ts";

const root = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function write(text: string, name = `config-${++n}`): string {
  const path = join(root, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const b64 = (s: string) => Buffer.from(s).toString("base64");

const first = write(
  `
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://dev.example.com:6443/
    certificate-authority: certs/ca.crt
    tls-server-name: api.dev
- name: shared
  cluster: { server: https://first.example.com }
users:
- name: alice
  user:
    client-certificate: certs/alice.crt
    client-key: /abs/alice.key
- name: shared
  user: { token: from-first }
contexts:
- name: dev
  context: { cluster: dev, user: alice, namespace: team-a }
- name: shared
  context: { cluster: shared, user: shared }
`,
  "a/config",
);

const second = write(
  `
current-context: prod
clusters:
- name: shared
  cluster: { server: https://second.example.com }
- name: prod
  cluster:
    server: https://prod.example.com
    certificate-authority-data: ${b64(PEM)}
    insecure-skip-tls-verify: false
users:
- name: shared
  user: { token: from-second }
- name: bob
  user:
    token: bob-token
- name: carol
  user:
    username: carol
    password: secret
- name: robot
  user:
    tokenFile: token
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/sso-plugin
      args: [get-token, --cluster, prod]
      env: [{ name: SSO_PROFILE, value: work }]
      interactiveMode: Never
      provideClusterInfo: true
      installHint: install sso-plugin
contexts:
- name: prod
  context: { cluster: prod, user: bob }
- name: shared
  context: { cluster: prod, user: carol }
- name: robot
  context: { cluster: prod, user: robot }
- name: sso
  context: { cluster: prod, user: sso }
- name: anonymous
  context: { cluster: prod }
- name: broken
  context: { cluster: nowhere, user: bob }
`,
  "b/config",
);

describe("kubeconfigFiles", () => {
  it("uses the explicit path only", () => {
    assert.deepEqual(kubeconfigFiles({ path: first, env: { KUBECONFIG: second } }).files, [first]);
  });
  it("splits KUBECONFIG, drops missing and repeated files", () => {
    const env = { KUBECONFIG: `${first}:${join(root, "missing")}::${second}:${first}` };
    assert.deepEqual(kubeconfigFiles({ env }).files, [first, second]);
  });
  it("falls back to ~/.kube/config", () => {
    const home = join(root, "home");
    const cfg = write("current-context: x\n", "home/.kube/config");
    assert.deepEqual(kubeconfigFiles({ env: { HOME: home } }).files, [cfg]);
    assert.deepEqual(kubeconfigFiles({ env: { HOME: join(root, "nohome") } }).files, []);
  });
});

describe("loadKubeconfig", () => {
  it("resolves the current context, its namespace and relative paths against the file's directory", () => {
    const cfg = loadKubeconfig({ path: first, env: {} });
    assert.equal(cfg.contextName, "dev");
    assert.equal(cfg.namespace, "team-a");
    assert.equal(cfg.namespaceFromConfig, true);
    assert.equal(cfg.cluster.server, "https://dev.example.com:6443");
    assert.equal(cfg.cluster.caFile, join(root, "a", "certs", "ca.crt"));
    assert.equal(cfg.cluster.tlsServerName, "api.dev");
    assert.equal(cfg.user.clientCertificateFile, join(root, "a", "certs", "alice.crt"));
    assert.equal(cfg.user.clientKeyFile, "/abs/alice.key");
  });

  it("merges KUBECONFIG files kubectl-style: the first definition and the first current-context win", () => {
    const env = { KUBECONFIG: `${first}:${second}` };
    const cfg = loadKubeconfig({ env });
    assert.equal(cfg.contextName, "dev");
    assert.deepEqual(cfg.files, [first, second]);
    const shared = loadKubeconfig({ env, context: "shared" });
    assert.equal(shared.cluster.server, "https://first.example.com");
    assert.equal(shared.user.token, "from-first");
    assert.equal(shared.namespace, "default");
    assert.equal(shared.namespaceFromConfig, false);
    assert.equal(loadKubeconfig({ env: { KUBECONFIG: `${second}:${first}` } }).contextName, "prod");
    assert.deepEqual(cfg.contexts.sort(), ["anonymous", "broken", "dev", "prod", "robot", "shared", "sso"]);
  });

  it("decodes -data fields and reads tokens, basic auth and token files", () => {
    const env = { KUBECONFIG: second };
    const prod = loadKubeconfig({ env });
    assert.equal(prod.cluster.caData, PEM);
    assert.equal(prod.user.token, "bob-token");
    const carol = loadKubeconfig({ env, context: "shared" }).user;
    assert.deepEqual([carol.username, carol.password], ["carol", "secret"]);
    assert.equal(loadKubeconfig({ env, context: "robot" }).user.tokenFile, join(root, "b", "token"));
    assert.equal(loadKubeconfig({ env, context: "anonymous" }).user.name, "");
  });

  it("overrides the context's cluster and user", () => {
    const cfg = loadKubeconfig({
      env: { KUBECONFIG: `${first}:${second}` },
      context: "dev",
      user: "bob",
      cluster: "prod",
    });
    assert.equal(cfg.cluster.server, "https://prod.example.com");
    assert.equal(cfg.user.token, "bob-token");
  });

  it("reads exec plugin settings; a command with a slash resolves against the file's directory", () => {
    const exec = loadKubeconfig({ env: { KUBECONFIG: second }, context: "sso" }).user.exec!;
    assert.deepEqual(exec, {
      apiVersion: "client.authentication.k8s.io/v1",
      command: join(root, "b", "bin", "sso-plugin"),
      args: ["get-token", "--cluster", "prod"],
      env: [{ name: "SSO_PROFILE", value: "work" }],
      installHint: "install sso-plugin",
      provideClusterInfo: true,
      interactiveMode: "Never",
    });
  });

  const fails = (opts: Parameters<typeof loadKubeconfig>[0], code: string, message: RegExp) =>
    assert.throws(() => loadKubeconfig(opts), (err: unknown) => {
      assert.ok(err instanceof KubeconfigError);
      assert.equal(err.code, code);
      assert.match(err.message, message);
      return true;
    });

  it("explains a missing explicit file", () => {
    const missing = join(root, "nope", "config");
    fails({ path: missing, env: {} }, "missing-file", new RegExp(`kubeconfig ${missing} does not exist`));
  });

  it("explains that no kubeconfig was found", () => {
    fails(
      { env: { HOME: join(root, "nohome") } },
      "no-config",
      /no kubeconfig found: .*nohome\/\.kube\/config does not exist; pass --kubeconfig or set KUBECONFIG/,
    );
    fails({ env: { KUBECONFIG: join(root, "x") } }, "no-config", /none of the files in KUBECONFIG exist/);
  });

  it("explains an unknown context, listing the known ones", () => {
    fails(
      { path: first, context: "stage", env: {} },
      "unknown-context",
      /context "stage" does not exist in .*\(contexts: dev, shared\)/,
    );
  });

  it("explains a missing current-context", () => {
    fails({ path: write("clusters: []\n"), env: {} }, "no-current-context", /no current context is set/);
  });

  it("explains a context pointing at an undefined cluster", () => {
    fails({ path: second, context: "broken", env: {} }, "unknown-cluster", /uses cluster "nowhere"/);
  });

  it("rejects an exec v1 plugin without interactiveMode and invalid YAML", () => {
    const noMode = write(`
current-context: c
clusters: [{ name: c, cluster: { server: https://x } }]
users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: p } } }]
contexts: [{ name: c, context: { cluster: c, user: u } }]
`);
    fails({ path: noMode, env: {} }, "invalid", /interactiveMode must be specified/);
    fails({ path: write("clusters: [\n"), env: {} }, "invalid", /is not valid YAML/);
  });

  it("keeps the file's lines, which may hold a token, out of a YAML error", () => {
    const broken = write("users:\n- name: u\n  user:\n    token: s3cr3t-token-value: x\n");
    assert.throws(() => loadKubeconfig({ path: broken, env: {} }), (err: unknown) => {
      assert.ok(err instanceof KubeconfigError);
      assert.match(err.message, /is not valid YAML/);
      assert.doesNotMatch(err.message, /s3cr3t/);
      return true;
    });
  });

  it("falls back to the in-cluster service account when no kubeconfig exists", () => {
    const sa = join(root, "sa");
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), "sa-token");
    writeFileSync(join(sa, "namespace"), "gitsync-system\n");
    writeFileSync(join(sa, "ca.crt"), PEM);
    const cfg = loadKubeconfig({
      env: {
        HOME: join(root, "nohome"),
        KUBERNETES_SERVICE_HOST: "10.0.0.1",
        KUBERNETES_SERVICE_PORT: "443",
      },
      serviceAccountDir: sa,
    });
    assert.equal(cfg.cluster.server, "https://10.0.0.1:443");
    assert.equal(cfg.cluster.caFile, join(sa, "ca.crt"));
    assert.equal(cfg.user.tokenFile, join(sa, "token"));
    assert.equal(cfg.namespace, "gitsync-system");
  });
});
