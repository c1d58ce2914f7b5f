/**
 * What several edgectl commands share on the command line: the global flags (--kubeconfig, --context,
 * -n) and the session they select, type words resolved through the resource table, and the options of
 * the commands that find the proxy's Pods or dial its agents.
 */
import {
  type Command,
  type CommandUnknownOpts,
  Option,
  type OptionValues,
} from "@commander-js/extra-typings";
import {
  addKubeOptions,
  kubeClientFor,
  type KubeSession,
  withKubeSession,
} from "../../internal/k8s/cli_session.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { DEFAULT_TIMEOUT } from "../../internal/edgeproxy/agent_client.ts";
import { DEFAULT_PROXY_NAMESPACE } from "../../internal/edgeproxy/proxy_pods.ts";
import {
  resolveResourceTypes,
  type ResourceType,
  UnknownTypeError,
} from "../../internal/edgeproxy/resources.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";
import type { Endpoint } from "../../internal/edgeproxy/endpoint.ts";
import { parseEndpoint } from "../../internal/edgeproxy/endpoint.ts";
import { DEFAULT_PROMETHEUS_URL, PrometheusClient } from "../../internal/edgeproxy/prometheus_client.ts";
import { DURATION_UNITS, parseDuration } from "../../internal/duration/duration.ts";
import { DEFAULT_TRACE_ENDPOINT, JaegerClient } from "../../internal/edgeproxy/jaeger_client.ts";

export const OUTPUT_ENV = "EDGECTL_OUTPUT";

/**
 * The global flags (--kubeconfig, --context, -n), accepted before or after the command name. A
 * command's help lists those it declares with useKubeOptions or useNamespaceOption, no others.
 */
export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "EDGECTL", { scoped: true });
}

export { kubeNamespace, useKubeOptions, useNamespaceOption } from "../../internal/k8s/cli_session.ts";

export type Session = KubeSession;

/** A client for the selected kubeconfig and context, for commands that keep it open (web). */
export function kubeClient(command: CommandUnknownOpts): Promise<KubeClient> {
  return kubeClientFor(command, `edgectl/${TOOL_VERSION}`);
}

/** Runs `fn` with a client for the selected kubeconfig and context; closes it afterwards. */
export function withSession<T>(
  command: CommandUnknownOpts,
  fn: (session: Session) => Promise<T>,
): Promise<T> {
  return withKubeSession(command, `edgectl/${TOOL_VERSION}`, fn);
}

/** The types a type word (or comma-separated words) names; an unknown word is a usage error. */
export function resourceTypesArgument(command: CommandUnknownOpts, words: string): ResourceType[] {
  try {
    return resolveResourceTypes(words);
  } catch (err) {
    if (err instanceof UnknownTypeError) command.error(`${err.message}`);
    throw err;
  }
}

/** Exactly one type; `get gw,rt` is a usage error. */
export function resourceTypeArgument(command: CommandUnknownOpts, words: string): ResourceType {
  const types = resourceTypesArgument(command, words);
  if (types.length !== 1) command.error(`${command.name()} takes one resource type, not "${words}"`);
  return types[0]!;
}

/** Commander's collector for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function proxyNamespaceOption() {
  return new Option("--proxy-namespace <namespace>", "Namespace the proxy's Pods run in")
    .env("EDGECTL_PROXY_NAMESPACE")
    .default(DEFAULT_PROXY_NAMESPACE);
}

/** --agent-namespace is the reference's spelling of --proxy-namespace; accepted, not advertised. */
export function agentNamespaceAlias() {
  return new Option("--agent-namespace <namespace>").hideHelp();
}

export function agentAddrOption() {
  return new Option(
    "--agent-addr <host:port>",
    "Dial this address instead of the agent Pod's IP and port 9092",
  );
}

export function timeoutOption() {
  return new Option("--timeout <duration>", "Deadline of each call to an agent, e.g. 2s or 500ms")
    .default(DEFAULT_TIMEOUT);
}

/**
 * The options of every command that dials agents: --timeout, --proxy-namespace and its hidden
 * spelling --agent-namespace. Generic over the command so the action's flags stay typed.
 */
export function withAgentOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command.addOption(timeoutOption()).addOption(proxyNamespaceOption()).addOption(
    agentNamespaceAlias(),
  );
}

/** --timeout in milliseconds, or a usage error. */
export function parseTimeout(text: string, fail: (message: string) => never): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    fail(`--timeout: "${text}" is not a positive duration such as 5s or 500ms`);
  }
  return ms!;
}

export const DEFAULT_TAIL = 50;

/** --tail: an integer, -1 for every line. */
export function parseTail(text: string): number | undefined {
  if (!/^-?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= -1 ? n : undefined;
}

/**
 * The servers edgectl reads: its URL option (from the environment variable, else the default) and,
 * hidden, the reference's spelling of it, which wins when given (endpointOf). `metrics` and `web` take
 * Prometheus's, `trace` and `web` Jaeger's.
 */
const SERVERS = {
  prometheus: {
    flags: "--prometheus-url <url>",
    description: "Prometheus server",
    env: "EDGECTL_PROMETHEUS_URL",
    fallback: DEFAULT_PROMETHEUS_URL,
    reference: "--prometheus-endpoint <url>",
  },
  jaeger: {
    flags: "--trace-endpoint <url>",
    description: "Jaeger query service",
    env: "EDGECTL_TRACE_ENDPOINT",
    fallback: DEFAULT_TRACE_ENDPOINT,
    reference: "--jaeger-endpoint <url>",
  },
} as const;

/** A server's options (SERVERS); generic over the command so the action's flags stay typed. */
export function withServerOptions<
  A extends unknown[],
  O extends OptionValues,
  G extends OptionValues,
  S extends keyof typeof SERVERS,
>(command: Command<A, O, G>, server: S) {
  const { flags, description, env, fallback, reference } = SERVERS[server];
  return command
    .addOption(new Option(flags, description).env(env).default(fallback))
    .addOption(new Option(reference, `Same as ${flags.split(" ")[0]}`).hideHelp());
}

type UsageErrors = { optsWithGlobals(): unknown; error(message: string): never };

/** The server a pair of serverOptions names (the reference's spelling first), or a usage error. */
function endpointOf(
  cmd: UsageErrors,
  flag: string,
  reference: string | undefined,
  current: string,
): Endpoint {
  const endpoint = parseEndpoint(reference ?? current, flag);
  return typeof endpoint === "string" ? cmd.error(endpoint) : endpoint;
}

/** The client for the parent's --prometheus-url (or the reference's --prometheus-endpoint). */
export function prometheusFor(cmd: UsageErrors): PrometheusClient {
  const flags = cmd.optsWithGlobals() as { prometheusUrl: string; prometheusEndpoint?: string };
  return new PrometheusClient(
    endpointOf(cmd, "--prometheus-url", flags.prometheusEndpoint, flags.prometheusUrl),
  );
}

/** A duration flag as a PromQL duration (in ms), or a usage error. */
export function promDuration(cmd: { error(message: string): never }, flag: string, text: string): string {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1) cmd.error(`${flag}: "${text}" is not a duration; use ${DURATION_UNITS}`);
  return `${Math.round(ms!)}ms`;
}

/** The client for the parent's --trace-endpoint (or the reference's --jaeger-endpoint). */
export function jaegerFor(cmd: UsageErrors): JaegerClient {
  const flags = cmd.optsWithGlobals() as { traceEndpoint: string; jaegerEndpoint?: string };
  return new JaegerClient(endpointOf(cmd, "--trace-endpoint", flags.jaegerEndpoint, flags.traceEndpoint));
}
