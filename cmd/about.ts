/**
 * What each binary's `--help` says of the tool as a whole: its summary, examples and where to read more.
 * One table for the seven, so they read alike and are kept side by side; each cmd/<tool>/main.ts
 * passes its entry to createProgram. Only strings: it costs a binary nothing to carry the others'.
 */
import type { ProgramOptions } from "../internal/cli/mod.ts";

export type About = Pick<ProgramOptions, "name" | "summary" | "description" | "examples" | "docs">;

export const ABOUT = {
  memsvc: {
    name: "memsvc",
    summary: "memsvc is a memory service for AI agents. It stores, searches, links and forgets memory " +
      "entries for each user, with optional shared projects, and serves them over a JSON HTTP API (/v1), " +
      "an MCP endpoint for AI agent hosts (/mcp) and an embedded dashboard (/admin). It listens on port " +
      "7778 by default and is configured through MEMSVC_* environment variables.",
    examples: [
      "# Start the service on the default port, 7778\nmemsvc serve",
      "# Start it on port 8080\nMEMSVC_PORT=8080 memsvc serve",
      "# Print the version as JSON\nmemsvc version -o json",
    ],
    docs: "README.md and docs/memsvc.md in the source repository",
  },
  "gitsync-manager": {
    name: "gitsync-manager",
    summary:
      "gitsync-manager is a Kubernetes GitOps controller. It renders manifests from Git or a Helm chart " +
      "repository (plain YAML, Kustomize and Helm, all in process), plans every Revision with a digest, applies " +
      "approved plans in ordered waves with Server-Side Apply, prunes, checks health and diagnoses failures. " +
      "It also serves the admission webhook, the Git push receiver and a read-only web console.",
    examples: [
      "# Run the controller with the current kubeconfig\ngitsync-manager run",
      "# Install or upgrade the CRDs\ngitsync-manager install-crds",
      "# Render a folder as the controller would (Kustomize or plain YAML), secrets redacted\n" +
      "gitsync-manager render --repository . --path deploy/prod",
      "# Serve the read-only web console (token sign-in)\nGITSYNC_CONSOLE_SESSION_KEY=$(openssl rand -hex 32) gitsync-manager console",
      "# Print the version as YAML\ngitsync-manager version -o yaml",
    ],
    docs: "docs/gitsync.md in the source repository",
  },
  gitsync: {
    name: "gitsync",
    summary: "gitsync is the command-line client for the gitsync GitOps controller. It works with the " +
      "controller's Applications, Repositories and Revisions (API group sync.gitsync.io/v1alpha1) in the " +
      "Kubernetes cluster of your current kubeconfig context: list them, read a Revision's plan, approve " +
      "exactly that plan, and follow the rollout.",
    description:
      "It uses your kubeconfig like kubectl: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; " +
      "--context or GITSYNC_CONTEXT picks a context, -n or GITSYNC_NAMESPACE a namespace. Output is a table, " +
      "JSON or YAML (-o, or GITSYNC_OUTPUT).",
    examples: [
      "# The Applications of namespace shop\ngitsync apps -n shop",
      "# Everything about Application web: Revisions, plan waiting, conditions\ngitsync get web -n shop",
      "# What the next rollout of Application web would change\ngitsync plan web -n shop",
      "# Approve exactly that plan and wait for the rollout\ngitsync approve web -n shop --digest sha256:… --wait",
      "# Who approved what, as JSON\ngitsync history web -n shop -o json",
      "# Back to the last known-good Revision\ngitsync rollback web -n shop --wait",
    ],
    docs: "docs/gitsync.md in the source repository",
  },
  edgectl: {
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
  },
  vault: {
    name: "vault",
    summary:
      "vault is a multi-user note service: notes stored per user, with search, a link graph and backlinks, " +
      "sharing, canvases, daily notes and templates, plugins, collaborative editing, live events and an MCP " +
      "endpoint for AI agent hosts. `vault serve` runs it (port 7779 by default).",
    examples: [
      "# Run the service on the embedded database in ./vault-db\n" +
      "BETTER_AUTH_SECRET=$(openssl rand -hex 32) DATABASE_URL=./vault-db vault serve",
      "# Import an Obsidian vault into a running server (a read-write API key)\n" +
      "VAULT_URL=http://127.0.0.1:7779 VAULT_TOKEN=vault_... vault import ~/Documents/MyVault",
      "# Export it again as a zip Obsidian opens\nVAULT_URL=http://127.0.0.1:7779 VAULT_TOKEN=vault_... vault export vault.zip",
      "# Print the version\nvault version",
      "# Print it as JSON\nvault version -o json",
    ],
    docs: "README.md and docs/vault.md in the source repository",
  },
  "vault-init": {
    name: "vault-init",
    summary:
      "vault-init wires AI agent hosts to a vault. It signs in to the vault server, mints an API key, " +
      "detects the agent hosts installed on this machine (macOS and Linux) and writes their MCP configuration, " +
      "keeping a backup of every file it changes. `install` is the default command.",
    examples: [
      "# Ask for the server, email and password, then wire every detected host\nvault-init",
      "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init --server https://vault.example.com --yes",
      "# Which hosts are wired?\nvault-init status",
      "# Undo everything and revoke the key\nvault-init uninstall",
    ],
    docs: "docs/vault-init.md in the source repository",
  },
  "vault-mcp": {
    name: "vault-mcp",
    summary:
      "vault-mcp connects AI agent hosts that only speak MCP over stdio to a vault. It serves MCP on " +
      "stdin and stdout and forwards every JSON-RPC message to the vault's HTTP MCP endpoint (VAULT_URL/api/mcp) " +
      "with VAULT_TOKEN as the bearer token, keeping the MCP session across requests. Run without a command, " +
      "it serves (`vault-mcp serve`).",
    examples: [
      "# What an agent host runs\nVAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... vault-mcp",
      "# An entry for Claude Desktop\n" +
      '{"command": "npx", "args": ["-y", "vault-mcp"], "env": {"VAULT_URL": "https://vault.example.com", ' +
      '"VAULT_TOKEN": "vault_..."}}',
      "# Print the version\nvault-mcp version",
    ],
    docs: "docs/vault-init.md in the source repository",
  },
} as const satisfies Record<string, About>;
