/** `edgectl generate static-pod|systemd-unit`: the agent's deployment artefacts, written to stdout. */
import { type Command, type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult } from "../../internal/cli/mod.ts";
import {
  AGENT_NAME,
  DEFAULT_BINARY_PATH,
  DEFAULT_CONFIG_PATH,
  DEFAULT_DOCUMENTATION,
  DEFAULT_KUBECONFIG_PATH,
  GenerateOptionError,
  staticPod,
  type StaticPodOptions,
  systemdUnit,
  type SystemdUnitOptions,
} from "../../internal/edgeproxy/agent_deploy.ts";
import { collect, kubeNamespace, useNamespaceOption } from "./flags.ts";

type StaticPodFlags = Omit<StaticPodOptions, "namespace"> & {
  podNamespace?: string;
  output: "yaml" | "json";
};

/** The static Pod's namespace: -n (or EDGECTL_NAMESPACE), or --pod-namespace, else kube-system. */
function podNamespace(cmd: CommandUnknownOpts, podNamespaceFlag: string | undefined): string {
  const n = kubeNamespace(cmd);
  if (n !== undefined && podNamespaceFlag !== undefined && n !== podNamespaceFlag) {
    cmd.error(`error: -n "${n}" and --pod-namespace "${podNamespaceFlag}" disagree; give one`);
  }
  return n ?? podNamespaceFlag ?? "kube-system";
}

/** A repeatable flag whose default list is replaced, not extended, by the first value given. */
const collectReplacingDefault = (defaults: string[]) => (value: string, previous: string[]) =>
  previous === defaults ? [value] : [...previous, value];

/**
 * The VIP, BGP and BFD flags both generators take (the reference's names and defaults). Commander's
 * typed options do not survive a shared helper, so the actions read them through VipFlags.
 */
function addVipOptions<C extends Command<[], Record<string, unknown>>>(command: C) {
  return command
    .option("--vip-address <ip[/prefix]>", "Virtual IP the agent announces, e.g. 10.0.0.100/32")
    .option("--vip-mode <mode>", "How the VIP is announced: l2 (ARP/NDP) or bgp", "l2")
    .option("--interface <name>", "Network interface the VIP is added to, e.g. eth0")
    .option("--bgp-local-as <asn>", "Local autonomous system number (bgp mode)")
    .option("--bgp-router-id <ipv4>", "BGP router id (bgp mode; default: the node's address)")
    .option(
      "--bgp-peer <ip:as[:port]>",
      "BGP peer, repeatable (bgp mode; port 179 by default)",
      collect,
      [] as string[],
    )
    .option("--bfd-enabled", "Detect peer failure with BFD (bgp mode)", false)
    .option("--bfd-detect-mult <n>", "BFD detection multiplier", "3")
    .option("--bfd-tx-interval <duration>", "BFD transmit interval", "300ms")
    .option("--bfd-rx-interval <duration>", "BFD receive interval", "300ms");
}

/** Runs a generator; a bad flag is a usage error (exit 2) and nothing is printed. */
function generating<T>(cmd: { error(message: string): never }, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof GenerateOptionError) cmd.error(`error: ${err.message}`);
    throw err;
  }
}

export function registerGenerate(program: Command, io: Io) {
  const generate = program
    .command("generate")
    .summary("Write the agent's static Pod manifest or systemd unit to stdout")
    .description(
      "Generate deployment artefacts for the proxy's agent: a static Pod for control-plane nodes " +
        "(/etc/kubernetes/manifests) that announces the API server's VIP, or a systemd unit for hosts " +
        "outside Kubernetes. Nothing is sent to a cluster; redirect stdout to a file.",
    );
  addExamples(generate, [
    "# A static Pod announcing 10.0.0.100 over ARP on eth0\n" +
    "edgectl generate static-pod --image registry.example/edge-agent:v1.4.0 --vip-address 10.0.0.100 " +
    "--interface eth0 > /etc/kubernetes/manifests/edge-agent.yaml",
    "# A systemd unit\nedgectl generate systemd-unit --config-path /etc/edgeproxy/agent.yaml > edge-agent.service",
  ]);

  const pod = addVipOptions(
    generate
      .command("static-pod")
      .summary("A static Pod that runs the agent and announces the API server's VIP")
      .description(
        "Print a static Pod manifest (YAML, or JSON with -o json) that runs the agent with host " +
          "networking on a control-plane node. The agent announces --vip-address while the local API " +
          "server on --api-port answers its health check (every --health-interval, failing after " +
          "--health-timeout), and reads the cluster through --kubeconfig-path mounted from the host.",
      )
      .requiredOption("--image <image>", "Agent container image, e.g. registry.example/edge-agent:v1.4.0"),
  )
    .option("--api-port <port>", "Port of the local kube-apiserver the health check probes", "6443")
    .option("--health-interval <duration>", "How often the API server is health-checked", "1s")
    .option("--health-timeout <duration>", "How long one health check may take", "3s")
    .option("--node-name <name>", "Node name the agent reports (default: the host name)")
    .option("--name <name>", "Pod name", "edge-agent")
    // The first spelling; -n is the kubectl one. Accepted, not advertised.
    .addOption(new Option("--pod-namespace <namespace>").hideHelp())
    .option("--kubeconfig-path <path>", "Host kubeconfig the agent uses", DEFAULT_KUBECONFIG_PATH)
    .addOption(
      new Option("-o, --output <format>", "Output format").choices(["yaml", "json"] as const).default(
        "yaml" as const,
      ),
    )
    .action((flags, cmd) => {
      const o = flags as unknown as StaticPodFlags;
      const namespace = podNamespace(cmd, o.podNamespace);
      const manifest = generating(cmd, () => staticPod({ ...o, namespace }));
      printResult(io, manifest, o.output, () => "");
    });
  useNamespaceOption(pod, "Namespace of the Pod (default: kube-system)");
  addExamples(pod, [
    "# ARP mode on eth0\nedgectl generate static-pod --image registry.example/edge-agent:v1.4.0 \\\n" +
    "  --vip-address 10.0.0.100/32 --interface eth0",
    "# BGP with two peers and BFD\nedgectl generate static-pod --image registry.example/edge-agent:v1.4.0 \\\n" +
    "  --vip-address 10.0.0.100 --vip-mode bgp --bgp-local-as 65001 \\\n" +
    "  --bgp-peer 10.0.0.1:65000 --bgp-peer 10.0.0.2:65000 --bfd-enabled",
  ]);

  const unit = addVipOptions(
    generate
      .command("systemd-unit")
      .summary("A hardened systemd service unit that runs the agent binary")
      .description(
        "Print a systemd service unit that runs the agent binary with its configuration file, after the " +
          "network is online, restarting it on failure, in a sandbox: as the dedicated system user --user " +
          "(the unit's first lines show how to create it) holding only CAP_NET_ADMIN, CAP_NET_RAW and " +
          "CAP_NET_BIND_SERVICE, with a read-only file system except its state directory " +
          `/var/lib/${AGENT_NAME}, no access to home directories, a private /tmp and /dev, the kernel's ` +
          "tunables, modules, logs and cgroups protected, and system calls limited to @system-service " +
          "(`systemd-analyze security` rates it about 2 of 10). Settings come also from " +
          `/etc/default/${AGENT_NAME} if it exists. ` +
          "--root runs the agent as root instead, still limited to those three capabilities and the same " +
          "sandbox. Use it only when the agent must read files that only root can, such as a kubeconfig " +
          "or TLS key you cannot give the agent's group; otherwise a user is safer, because root owns most " +
          "of the system's files even without other capabilities. The binary and the configuration must " +
          "not be under /home, /root, /run/user, /tmp or /var/tmp, which the sandbox hides.",
      )
      .option(
        "--config-path <path>",
        "Agent configuration file (read-only to the agent)",
        DEFAULT_CONFIG_PATH,
      )
      .option("--binary-path <path>", "Agent binary", DEFAULT_BINARY_PATH),
  )
    .option("--node-name <name>", "Node name the agent reports (default: the host name)")
    .option("--user <name>", "System user the agent runs as", AGENT_NAME)
    .option("--group <name>", "Its group (default: the user's name)")
    .addOption(
      new Option("--root", "Run as root instead of a user (see above for when)").default(false).conflicts([
        "user",
        "group",
      ]),
    )
    .option("--description <text>", "The unit's Description=", "Edge proxy agent")
    .option(
      "--documentation <uri>",
      "The unit's Documentation= (repeatable; http(s):, file:, man: or info:)",
      collectReplacingDefault(DEFAULT_DOCUMENTATION),
      DEFAULT_DOCUMENTATION,
    )
    .action((flags, cmd) => {
      const options = flags as unknown as SystemdUnitOptions;
      const text = generating(cmd, () => systemdUnit(options));
      io.stdout.write(text);
    });
  addExamples(unit, [
    "# Create the agent's user, install the unit and start the agent\n" +
    `useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${AGENT_NAME}\n` +
    "edgectl generate systemd-unit --config-path /etc/edgeproxy/agent.yaml > /etc/systemd/system/edge-agent.service\n" +
    "systemctl daemon-reload && systemctl enable --now edge-agent",
    "# With an L2 VIP, as user edge\nedgectl generate systemd-unit --vip-address 192.168.1.50 --interface eth1 --user edge",
    "# As root (the agent reads the host's admin kubeconfig)\nedgectl generate systemd-unit --root",
    "# How exposed the service is, by systemd's measure\n" +
    "systemd-analyze security --offline=true /etc/systemd/system/edge-agent.service",
  ]);
}
