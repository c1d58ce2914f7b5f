/**
 * The agent's deployment artefacts `edgectl generate` writes: its command line (VIP, health and BGP/BFD
 * settings), a static Pod for control-plane nodes and a systemd unit for hosts outside Kubernetes.
 * Options are validated here, before anything is printed, so a bad flag never yields half a manifest.
 */
import { isIP } from "node:net";
import { parseDuration } from "./duration.ts";

export const AGENT_NAME = "edge-agent";
export const DEFAULT_BINARY_PATH = `/usr/local/bin/${AGENT_NAME}`;
export const DEFAULT_CONFIG_PATH = "/etc/edgeproxy/agent.yaml";
export const DEFAULT_KUBECONFIG_PATH = "/etc/kubernetes/admin.conf";

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
  user?: string;
  description: string;
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

/** A systemd service that runs the agent binary with its config file, restarting it on failure. */
export function systemdUnit(o: SystemdUnitOptions): string {
  if (!o.binaryPath.startsWith("/")) fail(`--binary-path must be absolute, not "${o.binaryPath}"`);
  if (!o.configPath.startsWith("/")) fail(`--config-path must be absolute, not "${o.configPath}"`);
  if (/[\n\r]/.test(o.description)) fail("--description must be one line");
  if (o.user !== undefined && !/^[a-z_][a-z0-9_-]{0,31}$/.test(o.user)) {
    fail(`--user is not a user name: "${o.user}"`);
  }
  const exec = [o.binaryPath, `--config=${o.configPath}`, ...vipArgs(o, false), ...nodeNameArg(o.nodeName)];
  const lines = [
    "[Unit]",
    `Description=${o.description.replace(/%/g, "%%")}`,
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${exec.map(unitWord).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=5s",
    "LimitNOFILE=1048576",
  ];
  if (o.user !== undefined) {
    lines.push(
      `User=${o.user}`,
      // Binding :80/:443 and announcing VIPs without running as root.
      "AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE",
      "CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE",
    );
  }
  lines.push("", "[Install]", "WantedBy=multi-user.target", "");
  return lines.join("\n");
}
