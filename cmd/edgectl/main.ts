/** edgectl: the kubectl-style CLI for the edge proxy. */
import { createProgram, type Io, processIo, run } from "../../internal/cli/mod.ts";

export function buildProgram(io: Io = processIo) {
  return createProgram({
    name: "edgectl",
    summary:
      "edgectl is a kubectl-style command-line tool for the edge proxy. The proxy is configured through " +
      "Kubernetes custom resources (API group edgeproxy.io/v1alpha1: gateways, routes, backends, policies and " +
      "more); edgectl works with those resources and with the proxy's agents. Output is a table, JSON or " +
      "YAML (-o, or EDGECTL_OUTPUT).",
    examples: [
      "# Print the version\nedgectl version",
      "# Print it as YAML\nedgectl version -o yaml",
      "# Make JSON the default output format\nEDGECTL_OUTPUT=json edgectl version",
    ],
    docs: "README.md in the source repository",
    outputEnv: "EDGECTL_OUTPUT",
    io,
  });
}

if (import.meta.main) await run(buildProgram());
