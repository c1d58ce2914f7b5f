/**
 * dist/edgectl generate against the real consumers of its output: the static Pod is created with
 * dryRun=All by a real kube-apiserver (schema, defaulting and admission, priority class included),
 * and the systemd unit is checked by `systemd-analyze verify` (unknown keys, bad quoting and a
 * missing binary all fail it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { isKubeApiError, KubeClient } from "../../internal/k8s/mod.ts";
import { runBinary } from "../harness/binary.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";

const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";
const execFileAsync = promisify(execFile);

let k8s: KubeApiServer;
let admin: KubeClient;
let work: string;

function edgectl(args: string[]) {
  return runBinary("edgectl", args, { cwd: work, env: { KUBECONFIG: "/nonexistent/kubeconfig" } });
}

async function ok(args: string[]): Promise<string> {
  const r = await edgectl(args);
  assert.equal(r.code, 0, `edgectl ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr, "");
  return r.stdout;
}

/** The API server's verdict on a Pod, persisting nothing. */
function dryRunCreate(pod: { metadata: { namespace: string } }) {
  return admin.request<{ metadata: { uid?: string }; spec: { containers: { args: string[] }[] } }>({
    method: "POST",
    path: `/api/v1/namespaces/${pod.metadata.namespace}/pods`,
    query: { dryRun: "All" },
    body: pod,
  });
}

async function verifyUnit(text: string, name = "edge-agent.service") {
  const path = join(work, name);
  await writeFile(path, text);
  return await execFileAsync(SYSTEMD_ANALYZE, ["verify", path]).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
}

/** The "Overall exposure level" systemd-analyze security gives a unit file, 0.0 (safe) to 10.0. */
async function securityExposure(text: string, name: string): Promise<number> {
  const path = join(work, name);
  await writeFile(path, text);
  const r = await execFileAsync(SYSTEMD_ANALYZE, ["security", "--offline=true", path]);
  const m = /Overall exposure level for \S+: (\d+\.\d+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  return Number(m[1]);
}

describe("edgectl generate", () => {
  before(async () => {
    assert.ok(existsSync(SYSTEMD_ANALYZE), `${SYSTEMD_ANALYZE} is missing: apt-get install -y systemd`);
    k8s = await startKubeApiServer();
    admin = KubeClient.fromKubeconfig({ path: k8s.kubeconfigPath });
    work = await mkdtemp(join(tmpdir(), "edgectl-generate-"));
    // The ServiceAccount admission plugin needs each namespace's default account, which
    // kube-controller-manager creates in a real cluster.
    for (const namespace of ["kube-system", "default"]) {
      await admin.request({
        method: "POST",
        path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
        body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } },
      });
    }
  });

  after(async () => {
    admin?.close();
    await k8s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("static-pod (L2) is accepted by kube-apiserver; YAML and JSON agree", async () => {
    const flags = ["--image", "registry.example/edge-agent:v1.4.0", "--vip-address", "10.0.0.100/32"];
    const yaml = await ok(["generate", "static-pod", ...flags, "--interface", "eth0", "--node-name", "cp-1"]);
    const pod = parseYaml(yaml);
    const json = JSON.parse(
      await ok([
        "generate",
        "static-pod",
        ...flags,
        "--interface",
        "eth0",
        "--node-name",
        "cp-1",
        "-o",
        "json",
      ]),
    );
    assert.deepEqual(json, pod);
    const created = await dryRunCreate(pod);
    assert.deepEqual(created.spec.containers[0]!.args, [
      "--vip-address=10.0.0.100/32",
      "--vip-mode=l2",
      "--interface=eth0",
      "--api-port=6443",
      "--health-interval=1s",
      "--health-timeout=3s",
      "--node-name=cp-1",
      "--kubeconfig=/etc/kubernetes/admin.conf",
    ]);
    // Nothing was stored.
    await assert.rejects(
      admin.request({ path: "/api/v1/namespaces/kube-system/pods/edge-agent" }),
      (err) => isKubeApiError(err, "NotFound"),
    );
  });

  test("static-pod (BGP + BFD, custom name and namespace) is accepted too", async () => {
    const pod = parseYaml(
      await ok([
        "generate",
        "static-pod",
        "--image",
        "registry.example/edge-agent:v1.4.0",
        "--vip-address",
        "10.0.0.100",
        "--vip-mode",
        "bgp",
        "--bgp-local-as",
        "65001",
        "--bgp-router-id",
        "10.0.0.11",
        "--bgp-peer",
        "10.0.0.1:65000",
        "--bgp-peer",
        "10.0.0.2:65000:1179",
        "--bfd-enabled",
        "--bfd-detect-mult",
        "5",
        "--api-port",
        "8443",
        "--health-interval",
        "500ms",
        "--health-timeout",
        "2s",
        "--name",
        "vip-agent",
        "--pod-namespace",
        "default",
      ]),
    );
    assert.equal(pod.metadata.name, "vip-agent");
    const created = await dryRunCreate(pod);
    assert.ok(created.spec.containers[0]!.args.includes("--bfd-detect-mult=5"));
    assert.ok(created.spec.containers[0]!.args.includes("--bgp-peer=10.0.0.2:65000:1179"));
  });

  test("static-pod: -n is the Pod's namespace; generate offers no flag it ignores", async () => {
    const flags = ["--image", "registry.example/edge-agent:v1.4.0", "--vip-address", "10.0.0.100"];
    const pod = parseYaml(await ok(["-n", "default", "generate", "static-pod", ...flags]));
    assert.equal(pod.metadata.namespace, "default");
    await dryRunCreate(pod);
    assert.equal(parseYaml(await ok(["generate", "static-pod", ...flags])).metadata.namespace, "kube-system");
    assert.equal(
      parseYaml(await ok(["generate", "static-pod", ...flags, "--namespace", "edge-system"])).metadata
        .namespace,
      "edge-system",
    );
    const clash = await edgectl(["generate", "static-pod", ...flags, "-n", "a", "--pod-namespace", "b"]);
    assert.equal(clash.code, 2, clash.stderr);
    // Nothing is sent to a cluster, so --kubeconfig and --context are not offered; -n is, in its meaning here.
    const podHelp = await ok(["generate", "static-pod", "--help"]);
    assert.doesNotMatch(podHelp, /--kubeconfig(?!-path)|--context|--pod-namespace/);
    assert.match(podHelp, /-n, --namespace <name>\s+Namespace of the Pod \(default: kube-system\)/);
    for (const args of [["generate", "--help"], ["generate", "systemd-unit", "--help"]]) {
      assert.doesNotMatch(await ok(args), /--kubeconfig|--context|--namespace/, args.join(" "));
    }
  });

  test("a bad flag is a usage error (exit 2) and prints no manifest", async () => {
    for (
      const args of [
        ["static-pod", "--vip-address", "10.0.0.1"],
        ["static-pod", "--image", "x", "--vip-address", "10.0.0.256"],
        ["static-pod", "--image", "x", "--vip-address", "10.0.0.1", "--vip-mode", "bgp"],
        ["static-pod", "--image", "x", "--vip-address", "10.0.0.1", "--health-timeout", "soon"],
        ["systemd-unit", "--config-path", "relative.yaml"],
        ["systemd-unit", "--bgp-peer", "10.0.0.1:65000"],
      ]
    ) {
      const r = await edgectl(["generate", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "", args.join(" "));
      assert.match(r.stderr, /^error: /, args.join(" "));
    }
  });

  test("systemd-unit passes systemd-analyze verify; a mangled unit does not", async () => {
    // The binary must exist for verify, and outside the directories the sandbox hides (/tmp, /home).
    const binary = "/usr/bin/true";
    const unit = await ok([
      "generate",
      "systemd-unit",
      "--binary-path",
      binary,
      "--config-path",
      "/etc/edge proxy/agent.yaml",
      "--vip-address",
      "192.168.1.50",
      "--vip-mode",
      "bgp",
      "--bgp-local-as",
      "65001",
      "--bgp-peer",
      "192.168.1.1:65000",
      "--bfd-enabled",
      "--user",
      "edge",
      "--description",
      "Edge agent (50% canary)",
    ]);
    assert.match(
      unit,
      /^ExecStart=\/usr\/bin\/true "--config=\/etc\/edge proxy\/agent.yaml" --vip-address=/m,
    );
    assert.match(unit, /^ReadOnlyPaths="-\/etc\/edge proxy"$/m);
    assert.match(unit, /^Description=Edge agent \(50%% canary\)$/m);
    const good = await verifyUnit(unit);
    assert.equal(good.code, 0, good.stderr);
    assert.doesNotMatch(good.stderr, /edge-agent\.service/, good.stderr);
    // The verifier is real: the same unit with a missing binary or an unknown key is reported.
    const missing = await verifyUnit(unit.replace(binary, join(work, "absent")), "missing.service");
    assert.notEqual(missing.code, 0);
    const unknownKey = await verifyUnit(unit.replace("Restart=", "Restrat="), "typo.service");
    assert.match(unknownKey.stderr, /Unknown key/);
  });

  test("systemd-unit is sandboxed: exposure ≤ 3.0 as a user and ≤ 4.5 as root, and still verifies", async () => {
    const user = await ok(["generate", "systemd-unit", "--binary-path", "/usr/bin/true"]);
    const root = await ok(["generate", "systemd-unit", "--binary-path", "/usr/bin/true", "--root"]);
    // A dedicated system user by default, with the command that creates it; root only when asked.
    assert.match(user, /^User=edge-agent\nGroup=edge-agent$/m);
    assert.match(user, /^# {3}useradd --system --user-group .* edge-agent$/m);
    assert.match(user, /^AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE$/m);
    assert.doesNotMatch(root, /^(User|Group|AmbientCapabilities)=/m);
    for (const [name, text, limit] of [["user", user, 3.0], ["root", root, 4.5]] as const) {
      for (
        const line of [
          "NoNewPrivileges=yes",
          "ProtectSystem=strict",
          "ProtectHome=yes",
          "PrivateTmp=yes",
          "CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE",
          "SystemCallFilter=@system-service",
          "EnvironmentFile=-/etc/default/edge-agent",
          "ReadWritePaths=/var/lib/edge-agent",
          "ReadOnlyPaths=-/etc/edgeproxy",
        ]
      ) assert.ok(text.split("\n").includes(line), `${name}: ${line}`);
      assert.match(text, /^Documentation=https:\/\//m);
      const verified = await verifyUnit(text, `${name}.service`);
      assert.equal(verified.code, 0, verified.stderr);
      const exposure = await securityExposure(text, `${name}-security.service`);
      assert.ok(exposure <= limit, `${name}: exposure ${exposure} > ${limit}`);
    }
  });

  test("systemd-unit refuses paths the sandbox hides, and --root with --user", async () => {
    for (
      const [args, message] of [
        [
          ["--binary-path", "/home/me/edge-agent"],
          /--binary-path \/home\/me\/edge-agent is hidden .*ProtectHome/,
        ],
        [["--config-path", "/tmp/agent.yaml"], /--config-path \/tmp\/agent.yaml is hidden .*PrivateTmp/],
        [["--root", "--user", "edge"], /'--root' cannot be used with option '--user <name>'/],
        [["--user", "root"], /--user is not a system user name: "root"/],
        [["--documentation", "docs/agent.md"], /--documentation must be an http\(s\):/],
      ] as const
    ) {
      const r = await edgectl(["generate", "systemd-unit", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, message);
    }
  });

  test("defaults: the agent binary and config in their standard places; help has examples", async () => {
    const unit = await ok(["generate", "systemd-unit"]);
    assert.match(unit, /^ExecStart=\/usr\/local\/bin\/edge-agent --config=\/etc\/edgeproxy\/agent.yaml$/m);
    for (const sub of ["static-pod", "systemd-unit"]) {
      assert.match(await ok(["generate", sub, "--help"]), /Examples:[\s\S]*edgectl generate/);
    }
  });
});
