/**
 * The agent's deployment artefacts `edgectl generate` writes: its command line (VIP, health and BGP/BFD
 * settings), a static Pod for control-plane nodes and a systemd unit for hosts outside Kubernetes.
 * Options are validated here, before anything is printed, so a bad flag never yields half a manifest.
 */
import { isIP } from "node:net";
import { dirname } from "node:path";
import { parseDuration } from "../duration/duration.ts";

export const AGENT_NAME = "edge-agent";
export const DEFAULT_BINARY_PATH = `/usr/local/bin/${AGENT_NAME}`;
export const DEFAULT_CONFIG_PATH = "/etc/edgeproxy/agent.yaml";
export const DEFAULT_KUBECONFIG_PATH = "/etc/kubernetes/admin.conf";
/** What the unit's sandboxing settings mean; the project has no published URL of its own. */
export const DEFAULT_DOCUMENTATION = [
  "https://www.freedesktop.org/software/systemd/man/latest/systemd.exec.html",
];

export interface VipOptions {
  vipAddress?: string;
  vipMode: string;
  interface?: string;
  bgpLocalAs?: string;
  bgpRouterId?: string;
  bgpPeer: string[];
  bfdEnabled: boolean;
  bfdDetectMult: string;
  bfdTxInterval: string;
  bfdRxInterval: string;
}

export interface StaticPodOptions extends VipOptions {
  image: string;
  name: string;
  namespace: string;
  nodeName?: string;
  apiPort: string;
  healthInterval: string;
  healthTimeout: string;
  kubeconfigPath: string;
}

export interface SystemdUnitOptions extends VipOptions {
  binaryPath: string;
  configPath: string;
  nodeName?: string;
  /** The dedicated system user the agent runs as; ignored with `root`. */
  user: string;
  /** Its group (default: the user's name). */
  group?: string;
  /** Run as root, in the same sandbox and with the same capabilities. */
  root: boolean;
  description: string;
  documentation: string[];
}

/** A flag the user got wrong; the command reports it as a usage error (exit 2). */
export class GenerateOptionError extends Error {
  override name = "GenerateOptionError";
}

function fail(message: string): never {
  throw new GenerateOptionError(message);
}

function integer(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    fail(`${flag} must be an integer from ${min} to ${max}, not "${value}"`);
  }
  return Number(value);
}

function duration(flag: string, value: string): string {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) {
    fail(`${flag} must be a positive duration such as 300ms or 1s, not "${value}"`);
  }
  return value;
}

/** 10.0.0.100 or 10.0.0.100/32 (and IPv6 likewise). */
function vipAddress(value: string): string {
  const [ip, prefix, ...rest] = value.split("/");
  const family = isIP(ip ?? "");
  if (rest.length > 0 || family === 0) {
    fail(`--vip-address must be an IP address, optionally with /prefix, not "${value}"`);
  }
  if (prefix !== undefined) integer("--vip-address prefix", prefix, 0, family === 4 ? 32 : 128);
  return value;
}

/** IP:AS[:PORT], IPv6 in brackets: [2001:db8::1]:65001:179. */
export function parseBgpPeer(value: string): { address: string; as: number; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d+)(?::(\d+))?$/.exec(value);
  const address = m?.[1] ?? m?.[2];
  if (!m || !address || isIP(address) === 0) {
    fail(`--bgp-peer must be IP:AS[:PORT] (IPv6 as [IP]:AS[:PORT]), not "${value}"`);
  }
  return {
    address,
    as: integer("--bgp-peer AS", m[3]!, 1, 4294967295),
    port: m[4] === undefined ? 179 : integer("--bgp-peer port", m[4], 1, 65535),
  };
}

/** The VIP, BGP and BFD arguments both artefacts share. */
function vipArgs(o: VipOptions, requireVip: boolean): string[] {
  const args: string[] = [];
  if (o.vipAddress === undefined) {
    if (requireVip) fail("--vip-address is required");
    if (o.bgpPeer.length > 0 || o.bgpLocalAs !== undefined || o.bfdEnabled) {
      fail("BGP and BFD flags need --vip-address");
    }
    return args;
  }
  args.push(`--vip-address=${vipAddress(o.vipAddress)}`);
  const mode = o.vipMode.toLowerCase();
  if (mode !== "l2" && mode !== "bgp") fail(`--vip-mode must be l2 or bgp, not "${o.vipMode}"`);
  args.push(`--vip-mode=${mode}`);
  if (o.interface !== undefined) {
    if (!/^[A-Za-z0-9_.:@-]{1,15}$/.test(o.interface)) {
      fail(`--interface is not an interface name: "${o.interface}"`);
    }
    args.push(`--interface=${o.interface}`);
  }
  if (mode === "l2") {
    if (o.bgpLocalAs !== undefined || o.bgpRouterId !== undefined || o.bgpPeer.length > 0 || o.bfdEnabled) {
      fail("BGP and BFD flags need --vip-mode bgp");
    }
    return args;
  }
  if (o.bgpLocalAs === undefined) fail("--vip-mode bgp needs --bgp-local-as");
  if (o.bgpPeer.length === 0) fail("--vip-mode bgp needs at least one --bgp-peer IP:AS[:PORT]");
  args.push(`--bgp-local-as=${integer("--bgp-local-as", o.bgpLocalAs, 1, 4294967295)}`);
  if (o.bgpRouterId !== undefined) {
    if (isIP(o.bgpRouterId) !== 4) fail(`--bgp-router-id must be an IPv4 address, not "${o.bgpRouterId}"`);
    args.push(`--bgp-router-id=${o.bgpRouterId}`);
  }
  for (const peer of o.bgpPeer) {
    parseBgpPeer(peer);
    args.push(`--bgp-peer=${peer}`);
  }
  if (o.bfdEnabled) {
    args.push(
      "--bfd-enabled",
      `--bfd-detect-mult=${integer("--bfd-detect-mult", o.bfdDetectMult, 1, 255)}`,
      `--bfd-tx-interval=${duration("--bfd-tx-interval", o.bfdTxInterval)}`,
      `--bfd-rx-interval=${duration("--bfd-rx-interval", o.bfdRxInterval)}`,
    );
  }
  return args;
}

function nodeNameArg(nodeName: string | undefined): string[] {
  if (nodeName === undefined) return [];
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(nodeName)) {
    fail(`--node-name must be a DNS subdomain name, not "${nodeName}"`);
  }
  return [`--node-name=${nodeName}`];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * A static Pod (for /etc/kubernetes/manifests) that runs the agent on a control-plane node with host
 * networking, announcing the API server's VIP and moving it away when the local API server's health
 * check (every --health-interval, timing out after --health-timeout) fails.
 */
export function staticPod(o: StaticPodOptions): Record<string, unknown> {
  if (!o.image.trim() || /\s/.test(o.image)) fail(`--image must be an image reference, not "${o.image}"`);
  if (!DNS_LABEL.test(o.name)) fail(`--name must be a DNS label, not "${o.name}"`);
  if (!DNS_LABEL.test(o.namespace)) fail(`-n/--namespace must be a DNS label, not "${o.namespace}"`);
  if (!o.kubeconfigPath.startsWith("/")) {
    fail(`--kubeconfig-path must be absolute, not "${o.kubeconfigPath}"`);
  }
  const args = [
    ...vipArgs(o, true),
    `--api-port=${integer("--api-port", o.apiPort, 1, 65535)}`,
    `--health-interval=${duration("--health-interval", o.healthInterval)}`,
    `--health-timeout=${duration("--health-timeout", o.healthTimeout)}`,
    ...nodeNameArg(o.nodeName),
    `--kubeconfig=${o.kubeconfigPath}`,
  ];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: o.name,
      namespace: o.namespace,
      labels: { "app.kubernetes.io/name": "edgeproxy", "app.kubernetes.io/component": "agent" },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      containers: [{
        name: "agent",
        image: o.image,
        imagePullPolicy: "IfNotPresent",
        command: [AGENT_NAME],
        args,
        // Announcing a VIP means adding addresses and sending gratuitous ARP / BGP from the host.
        securityContext: { capabilities: { add: ["NET_ADMIN", "NET_RAW"], drop: ["ALL"] } },
        volumeMounts: [{ name: "kubeconfig", mountPath: o.kubeconfigPath, readOnly: true }],
      }],
      volumes: [{ name: "kubeconfig", hostPath: { path: o.kubeconfigPath, type: "File" } }],
    },
  };
}

/**
 * One ExecStart= word: systemd expands % specifiers and $ variables even in quotes, so both are
 * doubled; a word with spaces, quotes or backslashes is double-quoted with \ and " escaped.
 */
export function unitWord(word: string): string {
  const escaped = word.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  if (/^[A-Za-z0-9_@%$+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Where the sandbox hides the file system: ProtectHome=yes empties these, PrivateTmp=yes gives the
 * service its own /tmp and /var/tmp, so a binary or config there would be missing when it starts.
 */
const HIDDEN_FROM_SERVICE = ["/home", "/root", "/run/user", "/tmp", "/var/tmp"];

function visiblePath(flag: string, path: string): string {
  if (!path.startsWith("/")) fail(`${flag} must be absolute, not "${path}"`);
  const hidden = HIDDEN_FROM_SERVICE.find((dir) => path === dir || path.startsWith(`${dir}/`));
  if (hidden) {
    fail(
      `${flag} ${path} is hidden from the service by its sandbox (${
        hidden.endsWith("tmp") ? "PrivateTmp=yes" : "ProtectHome=yes"
      }): install it under /usr/local, /opt or /etc`,
    );
  }
  return path;
}

/** A path in a path-list setting (ReadOnlyPaths=): % specifiers doubled, quoted when it has spaces. */
function unitPath(path: string): string {
  const escaped = path.replace(/%/g, "%%");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)
    ? escaped
    : `"${escaped.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A word to paste into a shell: as is when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

/** The capabilities the agent needs: VIP addresses and routes, ARP and ICMP probes, ports below 1024. */
const CAPABILITIES = "CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE";

/**
 * A systemd service that runs the agent binary with its config file, restarting it on failure, in a
 * sandbox: a dedicated system user (or root with --root) holding only the network capabilities, a
 * read-only file system but for its state directory, no home directories, a private /tmp and /dev,
 * kernel tunables, modules, logs and cgroups protected, and system calls limited to @system-service.
 * `systemd-analyze security` rates it 1.8 (user) and 2.1 (root) on its scale of 0 (safe) to 10.
 */
export function systemdUnit(o: SystemdUnitOptions): string {
  visiblePath("--binary-path", o.binaryPath);
  visiblePath("--config-path", o.configPath);
  if (/[\n\r]/.test(o.description)) fail("--description must be one line");
  for (const url of o.documentation) {
    if (!/^(https?|file|man|info):\S+$/.test(url)) {
      fail(`--documentation must be an http(s):, file:, man: or info: URI, not "${url}"`);
    }
  }
  const group = o.group ?? o.user;
  if (!o.root) {
    if (!USER_NAME.test(o.user) || o.user === "root") fail(`--user is not a system user name: "${o.user}"`);
    if (!USER_NAME.test(group) || group === "root") fail(`--group is not a group name: "${group}"`);
  }
  const exec = [o.binaryPath, `--config=${o.configPath}`, ...vipArgs(o, false), ...nodeNameArg(o.nodeName)];
  const configDir = dirname(o.configPath);
  const header = o.root
    ? [
      "# Runs as root (--root), in the same sandbox and with the same three capabilities as a user would.",
    ]
    : [
      `# Runs as the system user ${o.user}. Create it, and let it read the configuration:`,
      group === o.user
        ? `#   useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${o.user}`
        : `#   groupadd --system ${group} && useradd --system --gid ${group} --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${o.user}`,
      `#   chgrp ${group} ${shellWord(o.configPath)} && chmod 0640 ${shellWord(o.configPath)}`,
    ];
  const lines = [
    "# The edge proxy's agent, from `edgectl generate systemd-unit`.",
    ...header,
    `# The file system is read-only to it except its state directory /var/lib/${AGENT_NAME} ($STATE_DIRECTORY);`,
    "# relax a setting with `systemctl edit` rather than in this file.",
    "",
    "[Unit]",
    `Description=${o.description.replace(/%/g, "%%")}`,
    `Documentation=${o.documentation.join(" ")}`,
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    ...(o.root ? [] : [`User=${o.user}`, `Group=${group}`]),
    `EnvironmentFile=-/etc/default/${AGENT_NAME}`,
    `ExecStart=${exec.map(unitWord).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=5s",
    "LimitNOFILE=1048576",
    "",
    "# Capabilities: announcing VIPs (addresses, routes, ARP/NDP), raw probes, ports below 1024.",
    `CapabilityBoundingSet=${CAPABILITIES}`,
    ...(o.root ? [] : [`AmbientCapabilities=${CAPABILITIES}`]),
    "NoNewPrivileges=yes",
    "",
    "# File system: read-only but for the state directory; the configuration read-only too.",
    "ProtectSystem=strict",
    `StateDirectory=${AGENT_NAME}`,
    "StateDirectoryMode=0750",
    `ReadWritePaths=/var/lib/${AGENT_NAME}`,
    // "-": a missing directory is the agent's error to report, not a namespace set-up failure.
    `ReadOnlyPaths=${unitPath(`-${configDir}`)}`,
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "PrivateDevices=yes",
    "PrivateMounts=yes",
    "UMask=0027",
    ...(o.root ? [] : ["RemoveIPC=yes"]),
    "",
    "# Kernel and process isolation.",
    "ProtectKernelTunables=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "ProtectProc=invisible",
    "RestrictSUIDSGID=yes",
    "RestrictNamespaces=yes",
    "RestrictRealtime=yes",
    "LockPersonality=yes",
    // Netlink configures addresses and routes, packet sockets send gratuitous ARP.
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK AF_PACKET",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "SystemCallFilter=~@privileged @resources",
    "SystemCallErrorNumber=EPERM",
    "# MemoryDenyWriteExecute= is left off: WASM plugins are compiled to machine code at run time.",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ];
  return lines.join("\n");
}
