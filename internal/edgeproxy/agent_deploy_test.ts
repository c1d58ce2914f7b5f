import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GenerateOptionError,
  parseBgpPeer,
  staticPod,
  type StaticPodOptions,
  systemdUnit,
  type SystemdUnitOptions,
  unitWord,
} from "./agent_deploy.ts";

const VIP = {
  vipMode: "l2",
  bgpPeer: [] as string[],
  bfdEnabled: false,
  bfdDetectMult: "3",
  bfdTxInterval: "300ms",
  bfdRxInterval: "300ms",
};
const POD: StaticPodOptions = {
  ...VIP,
  vipAddress: "10.0.0.100/32",
  image: "registry.example/edge-agent:v1",
  name: "edge-agent",
  namespace: "kube-system",
  apiPort: "6443",
  healthInterval: "1s",
  healthTimeout: "3s",
  kubeconfigPath: "/etc/kubernetes/admin.conf",
};
const UNIT: SystemdUnitOptions = {
  ...VIP,
  binaryPath: "/usr/local/bin/edge-agent",
  configPath: "/etc/edgeproxy/agent.yaml",
  user: "edge-agent",
  root: false,
  description: "Edge proxy agent",
  documentation: ["https://docs.example/edge-agent"],
};

function args(pod: Record<string, unknown>): string[] {
  return (pod as { spec: { containers: { args: string[] }[] } }).spec.containers[0]!.args;
}

test("static pod: VIP, health check and kubeconfig arguments, host network", () => {
  const pod = staticPod({ ...POD, interface: "eth0", nodeName: "cp-1" });
  assert.deepEqual(args(pod), [
    "--vip-address=10.0.0.100/32",
    "--vip-mode=l2",
    "--interface=eth0",
    "--api-port=6443",
    "--health-interval=1s",
    "--health-timeout=3s",
    "--node-name=cp-1",
    "--kubeconfig=/etc/kubernetes/admin.conf",
  ]);
  assert.equal((pod.spec as { hostNetwork: boolean }).hostNetwork, true);
});

test("bgp mode: local AS, router id, peers and BFD timers", () => {
  const pod = staticPod({
    ...POD,
    vipMode: "BGP",
    bgpLocalAs: "65001",
    bgpRouterId: "10.0.0.11",
    bgpPeer: ["10.0.0.1:65000", "[2001:db8::1]:65000:1179"],
    bfdEnabled: true,
    bfdTxInterval: "100ms",
  });
  assert.deepEqual(args(pod).slice(0, 10), [
    "--vip-address=10.0.0.100/32",
    "--vip-mode=bgp",
    "--bgp-local-as=65001",
    "--bgp-router-id=10.0.0.11",
    "--bgp-peer=10.0.0.1:65000",
    "--bgp-peer=[2001:db8::1]:65000:1179",
    "--bfd-enabled",
    "--bfd-detect-mult=3",
    "--bfd-tx-interval=100ms",
    "--bfd-rx-interval=300ms",
  ]);
  assert.deepEqual(parseBgpPeer("[2001:db8::1]:65000:1179"), {
    address: "2001:db8::1",
    as: 65000,
    port: 1179,
  });
  assert.deepEqual(parseBgpPeer("10.0.0.1:65000"), { address: "10.0.0.1", as: 65000, port: 179 });
});

test("bad flags are refused with the flag's name", () => {
  const cases: [Partial<StaticPodOptions>, RegExp][] = [
    [{ vipAddress: undefined }, /--vip-address is required/],
    [{ vipAddress: "10.0.0.300" }, /--vip-address/],
    [{ vipAddress: "10.0.0.1/33" }, /prefix/],
    [{ vipMode: "ospf" }, /--vip-mode must be l2 or bgp/],
    [{ bgpLocalAs: "65001" }, /need --vip-mode bgp/],
    [{ vipMode: "bgp", bgpPeer: ["10.0.0.1:65000"] }, /--bgp-local-as/],
    [{ vipMode: "bgp", bgpLocalAs: "65001" }, /--bgp-peer/],
    [{ vipMode: "bgp", bgpLocalAs: "65001", bgpPeer: ["10.0.0.1"] }, /IP:AS/],
    [{ vipMode: "bgp", bgpLocalAs: "65001", bgpPeer: ["10.0.0.1:0"] }, /AS must be/],
    [{ vipMode: "bgp", bgpLocalAs: "x", bgpPeer: ["10.0.0.1:1"] }, /--bgp-local-as must be/],
    [{ vipMode: "bgp", bgpLocalAs: "1", bgpPeer: ["10.0.0.1:1"], bgpRouterId: "::1" }, /IPv4/],
    [
      { vipMode: "bgp", bgpLocalAs: "1", bgpPeer: ["10.0.0.1:1"], bfdEnabled: true, bfdDetectMult: "0" },
      /mult/,
    ],
    [
      { vipMode: "bgp", bgpLocalAs: "1", bgpPeer: ["10.0.0.1:1"], bfdEnabled: true, bfdRxInterval: "fast" },
      /rx/,
    ],
    [{ apiPort: "70000" }, /--api-port/],
    [{ healthInterval: "1" }, /--health-interval/],
    [{ healthTimeout: "0s" }, /--health-timeout/],
    [{ image: "a b" }, /--image/],
    [{ name: "Edge_Agent" }, /--name/],
    [{ interface: "eth0; rm -rf /" }, /--interface/],
    [{ nodeName: "Node 1" }, /--node-name/],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => staticPod({ ...POD, ...change }), (err: Error) => {
      assert.ok(err instanceof GenerateOptionError, String(err));
      assert.match(err.message, message);
      return true;
    }, JSON.stringify(change));
  }
  assert.throws(() => systemdUnit({ ...UNIT, configPath: "agent.yaml" }), /--config-path must be absolute/);
  assert.throws(() => systemdUnit({ ...UNIT, binaryPath: "edge-agent" }), /--binary-path must be absolute/);
  assert.throws(() => systemdUnit({ ...UNIT, user: "Root Admin" }), /--user is not a system user name/);
  assert.throws(() => systemdUnit({ ...UNIT, description: "a\n[Service]" }), /one line/);
  assert.throws(() => systemdUnit({ ...UNIT, bfdEnabled: true }), /need --vip-address/);
});

test("systemd unit: golden text, as a dedicated user", () => {
  assert.equal(
    systemdUnit({ ...UNIT, vipAddress: "192.168.1.50", interface: "eth1", user: "edge", nodeName: "edge-1" }),
    GOLDEN_USER,
  );
});

test("systemd unit as root: no User=, no ambient capabilities, the same sandbox", () => {
  const root = systemdUnit({ ...UNIT, root: true, user: "ignored" });
  const user = systemdUnit(UNIT);
  const settings = (text: string) => text.split("\n").filter((l) => /^[A-Z]\w+=/.test(l));
  assert.deepEqual(
    settings(user).filter((l) => !settings(root).includes(l)),
    [
      "User=edge-agent",
      "Group=edge-agent",
      "AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE",
      "RemoveIPC=yes",
    ],
  );
  assert.deepEqual(settings(root).filter((l) => !settings(user).includes(l)), []);
  assert.match(root, /^# Runs as root \(--root\)/m);
});

test("systemd unit: a group of its own, and paths with spaces and % quoted where they are set", () => {
  const unit = systemdUnit({ ...UNIT, group: "netops", configPath: "/etc/edge proxy 50%/agent.yaml" });
  assert.match(unit, /^# {3}groupadd --system netops && useradd --system --gid netops .* edge-agent$/m);
  assert.match(unit, /^# {3}chgrp netops '\/etc\/edge proxy 50%\/agent.yaml' && chmod 0640 /m);
  assert.match(unit, /^Group=netops$/m);
  assert.match(unit, /^ReadOnlyPaths="-\/etc\/edge proxy 50%%"$/m);
});

test("systemd unit: paths the sandbox hides, bad users and documentation URIs are refused", () => {
  for (
    const [change, message] of [
      [
        { binaryPath: "/home/ops/edge-agent" },
        /--binary-path \/home\/ops\/edge-agent is hidden .*ProtectHome=yes/,
      ],
      [{ binaryPath: "/root/edge-agent" }, /ProtectHome=yes/],
      [{ configPath: "/tmp/agent.yaml" }, /--config-path \/tmp\/agent.yaml is hidden .*PrivateTmp=yes/],
      [{ configPath: "/var/tmp/a/agent.yaml" }, /PrivateTmp=yes/],
      [{ user: "root" }, /--user is not a system user name: "root"/],
      [{ group: "Ops Team" }, /--group is not a group name/],
      [
        { documentation: ["docs/agent.md"] },
        /--documentation must be an http\(s\):, file:, man: or info: URI/,
      ],
    ] as [Partial<SystemdUnitOptions>, RegExp][]
  ) {
    assert.throws(() => systemdUnit({ ...UNIT, ...change }), message, JSON.stringify(change));
  }
  // Near misses are fine: /homestead is not /home, and root needs no user name.
  assert.doesNotThrow(() => systemdUnit({ ...UNIT, binaryPath: "/homestead/edge-agent" }));
  assert.doesNotThrow(() => systemdUnit({ ...UNIT, root: true, user: "root" }));
});

test("ExecStart words: specifiers and variables doubled, spaces and quotes quoted", () => {
  assert.equal(unitWord("--config=/etc/a.yaml"), "--config=/etc/a.yaml");
  assert.equal(unitWord("/opt/50%/$HOME"), "/opt/50%%/$$HOME");
  assert.equal(unitWord('/etc/my "edge"/a b'), '"/etc/my \\"edge\\"/a b"');
});

const GOLDEN_USER = `# The edge proxy's agent, from \`edgectl generate systemd-unit\`.
# Runs as the system user edge. Create it, and let it read the configuration:
#   useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin edge
#   chgrp edge /etc/edgeproxy/agent.yaml && chmod 0640 /etc/edgeproxy/agent.yaml
# The file system is read-only to it except its state directory /var/lib/edge-agent ($STATE_DIRECTORY);
# relax a setting with \`systemctl edit\` rather than in this file.

[Unit]
Description=Edge proxy agent
Documentation=https://docs.example/edge-agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User=edge
Group=edge
EnvironmentFile=-/etc/default/edge-agent
ExecStart=/usr/local/bin/edge-agent --config=/etc/edgeproxy/agent.yaml --vip-address=192.168.1.50 --vip-mode=l2 --interface=eth1 --node-name=edge-1
Restart=on-failure
RestartSec=5s
LimitNOFILE=1048576

# Capabilities: announcing VIPs (addresses, routes, ARP/NDP), raw probes, ports below 1024.
CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE
AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE
NoNewPrivileges=yes

# File system: read-only but for the state directory; the configuration read-only too.
ProtectSystem=strict
StateDirectory=edge-agent
StateDirectoryMode=0750
ReadWritePaths=/var/lib/edge-agent
ReadOnlyPaths=-/etc/edgeproxy
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
PrivateMounts=yes
UMask=0027
RemoveIPC=yes

# Kernel and process isolation.
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictSUIDSGID=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK AF_PACKET
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
# MemoryDenyWriteExecute= is left off: WASM plugins are compiled to machine code at run time.

[Install]
WantedBy=multi-user.target
`;
