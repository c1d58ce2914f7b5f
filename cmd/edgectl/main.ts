/** edgectl: the kubectl-style CLI for the edge proxy. Commands live beside this file, one per file. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";
import { registerAgent } from "./agent.ts";
import { registerAgents } from "./agents.ts";
import { registerAnalyze } from "./analyze.ts";
import { registerApply } from "./apply.ts";
import { registerCache } from "./cache.ts";
import { registerCheck } from "./check.ts";
import { registerDelete } from "./delete.ts";
import { registerDescribe } from "./describe.ts";
import { registerFederation } from "./federation.ts";
import { registerGenerate } from "./generate.ts";
import { registerGatewayApi } from "./gateway_api.ts";
import { registerGet } from "./get.ts";
import { registerInstallCrds } from "./install_crds.ts";
import { registerLogs } from "./logs.ts";
import { registerLogsAccess } from "./logs_access.ts";
import { registerMetrics } from "./metrics.ts";
import { registerSdwan } from "./sdwan.ts";
import { registerTrace } from "./trace.ts";
import { addGlobalOptions, OUTPUT_ENV } from "./flags.ts";
import { registerVersion } from "./version.ts";
import { registerWeb } from "./web.ts";
import { registerConformance } from "./conformance.ts";

export function buildProgram(io: Io = processIo) {
  const program = createProgram({
    name: "edgectl",
    summary:
      "edgectl is a kubectl-style command-line tool for the edge proxy. The proxy is configured through " +
      "Kubernetes custom resources (API group edgeproxy.io/v1alpha1: gateways, routes, backends, policies and " +
      "more); edgectl installs their definitions and gets, describes, applies and deletes them, reads the " +
      "proxy's logs and access logs (logs, logs-access), its metrics from Prometheus (metrics) and its traces " +
      "from Jaeger (trace), and serves a web dashboard of all of it (web). It asks the proxy's agents over gRPC " +
      "what they have applied and manages their response cache (agent, agents, cache), shows the federation of " +
      "controllers across clusters (federation, describe cluster), inspects the SD-WAN overlay (sdwan) and the " +
      "Gateway API objects (gateway-api), reports the proxy's Gateway API conformance (conformance), checks an " +
      "installation (check), finds mistakes in manifests offline (analyze) and generates the agent's static Pod " +
      "or systemd unit (generate). Output is a table, JSON or YAML (-o, or EDGECTL_OUTPUT).",
    description:
      "It uses your kubeconfig like kubectl: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; " +
      "--context or EDGECTL_CONTEXT picks a context, -n or EDGECTL_NAMESPACE a namespace.",
    examples: [
      "# Install the edge proxy's resource definitions into the cluster\nedgectl install-crds",
      "# Is the proxy healthy? (CRDs, controller, agents, GatewayClasses; exit 1 if not)\nedgectl check",
      "# Apply a directory of manifests\nedgectl apply -f manifests/",
      "# List the routes of every namespace\nedgectl get routes -A",
      "# Check manifests offline for missing backends, dangling policy targets and duplicate hostnames\nedgectl analyze -f manifests/",
      "# Describe a gateway\nedgectl describe gateway main -n shop",
      "# Print the client and Kubernetes versions as YAML\nedgectl version -o yaml",
      "# Follow the agents' logs\nedgectl logs agent -f",
      "# The slowest routes, from Prometheus\nedgectl metrics top-routes --prometheus-url http://localhost:9090",
      "# WAN links of every namespace with latency, loss and health\nedgectl sdwan links -A",
      "# Recent traces from Jaeger\nedgectl trace list --lookback 2h",
      "# Gateway API gateways of every namespace, and the proxy's conformance\nedgectl gateway-api gw -A\nedgectl conformance",
      "# A systemd unit for the agent on a host outside Kubernetes\nedgectl generate systemd-unit > edge-agent.service",
      "# The web dashboard, read-only, on this machine\nedgectl web --listen 127.0.0.1:9080 --read-only",
      "# The agents, and what the one on node worker-1 applies\nedgectl agents list -o wide\nedgectl agent config worker-1",
      "# Purge cached responses for a domain on every agent\nedgectl cache purge --hostname '*.example.com'",
      "# Health of the federation's members\nedgectl federation status global",
    ],
    docs: "README.md and docs/edgectl.md in the source repository",
    outputEnv: OUTPUT_ENV,
    versionCommand: false,
    io,
  });
  addGlobalOptions(program);
  registerVersion(program, io);
  registerInstallCrds(program, io);
  registerGet(program, io);
  registerDescribe(program, io);
  registerApply(program, io);
  registerDelete(program, io);
  registerLogs(program, io);
  registerLogsAccess(program, io);
  registerMetrics(program, io);
  registerSdwan(program, io);
  registerTrace(program, io);
  registerWeb(program, io);
  registerAgent(program, io);
  registerAgents(program, io);
  registerCache(program, io);
  registerFederation(program, io);
  registerGatewayApi(program, io);
  registerConformance(program, io);
  registerGenerate(program, io);
  registerAnalyze(program, io);
  registerCheck(program, io);
  return program;
}

// Not awaited: the binaries are CommonJS bundles (scripts/build.ts), which have no top-level await.
if (import.meta.main) void run(buildProgram());
