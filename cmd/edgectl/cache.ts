/**
 * `edgectl cache stats|purge`: the agents' response cache, over the same gRPC AgentService as
 * `agent` (GetCacheStats, PurgeCache), so one port, one deadline and one error style serve both.
 * (The reference used plain HTTP to the agent's health port; gRPC was chosen so the cache API is
 * typed in agent.proto like the rest.) Every agent Pod is called unless --agent-addr names one agent.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption } from "../../internal/cli/mod.ts";
import type { PurgeCacheRequest } from "../../internal/proto/edgeproxy/agent/v1/agent_pb.ts";
import { agentRef } from "../../internal/edgeproxy/agent_client.ts";
import { agentAddrOption, kubeNamespace, OUTPUT_ENV, useKubeOptions, withAgentOptions } from "./flags.ts";
import { onAgents } from "./agent_targets.ts";
import {
  CACHE_STATS_HEADERS,
  cacheStatsRows,
  printAgentAnswers,
} from "../../internal/edgeproxy/agent_views.ts";

export function registerCache(program: Command, io: Io) {
  const cache = program
    .command("cache")
    .summary("Show or purge the agents' response cache")
    .description(
      "The response cache of every agent, over gRPC (AgentService GetCacheStats and PurgeCache). " +
        "Agents are found as for `edgectl agents`; --agent-addr talks to one agent without Kubernetes.",
    );
  useKubeOptions(cache, { namespace: true });

  const stats = withAgentOptions(
    cache
      .command("stats")
      .summary("Entries, size, hits and misses of each agent's cache")
      .description(
        "Entries, size, hits, misses, hit ratio and evictions of each agent's response cache. Entries and " +
          "size count only routes of one namespace when -n/--namespace (or EDGECTL_NAMESPACE) is given.",
      )
      .addOption(agentAddrOption()),
  )
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const namespace = kubeNamespace(cmd) ?? "";
      const { results, skipped } = await onAgents(
        cmd as unknown as Command,
        flags,
        () => (c, o) => c.getCacheStats({ namespace }, o),
      );
      const ok = results.flatMap((r) => "value" in r ? [{ target: r.target, stats: r.value }] : []);
      const { cacheStatsDocument } = await import("../../internal/edgeproxy/agent_format.ts");
      printAgentAnswers(io, flags.output, { results, skipped }, cacheStatsDocument(ok, namespace), {
        headers: CACHE_STATS_HEADERS,
        rows: () => cacheStatsRows(ok),
      });
    });
  addExamples(stats, [
    "# Every agent's cache\nedgectl cache stats",
    "# Only entries of routes in namespace shop, as JSON\nedgectl cache stats -n shop -o json",
    "# One agent through a port-forward\nedgectl cache stats --agent-addr 127.0.0.1:9092",
  ]);

  const purge = withAgentOptions(
    cache
      .command("purge")
      .summary("Drop cached responses: all, by hostname pattern, or of one route")
      .description(
        "Drop cached responses on every agent. Exactly one of --all, --hostname <pattern> (a glob: * and ?) " +
          "or --route <name> (a route of -n's namespace, or <namespace>/<name>) is required.",
      )
      .option("--all", "Drop every cached response", false)
      .option("--hostname <pattern>", "Drop responses for hostnames matching this glob, e.g. *.example.com")
      .addOption(new Option("--pattern <pattern>").hideHelp())
      .option("--route <name>", "Drop responses of this route")
      .addOption(agentAddrOption()),
  )
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const hostname = flags.hostname ?? flags.pattern;
      if (flags.hostname !== undefined && flags.pattern !== undefined) {
        cmd.error("--pattern is another name for --hostname; give one");
      }
      const chosen = [flags.all, hostname !== undefined, flags.route !== undefined].filter(Boolean).length;
      if (chosen !== 1) cmd.error("exactly one of --all, --hostname or --route is required");
      if (hostname !== undefined && hostname.trim() === "") cmd.error("--hostname: the pattern is empty");
      if (flags.route !== undefined && !/^([a-z0-9-]+\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(flags.route)) {
        cmd.error(`--route: "${flags.route}" is not a route name (or <namespace>/<name>)`);
      }
      // The route's namespace is the working one, known only once the session is open.
      let selector: PurgeCacheRequest["selector"] = { case: undefined };
      const { results, skipped } = await onAgents(cmd as unknown as Command, flags, (namespace) => {
        const route = flags.route?.includes("/") ? flags.route : `${namespace}/${flags.route}`;
        selector = flags.all
          ? { case: "all", value: true }
          : hostname !== undefined
          ? { case: "hostnamePattern", value: hostname }
          : { case: "route", value: route };
        return (c, o) => c.purgeCache({ selector }, o);
      });
      const ok = results.flatMap((r) => "value" in r ? [{ target: r.target, purged: r.value.purged }] : []);
      // Assigned in the callback above; TypeScript does not follow that.
      const sent = selector as PurgeCacheRequest["selector"];
      const what = sent.case === "all"
        ? { all: true }
        : sent.case === "hostnamePattern"
        ? { hostname: sent.value }
        : { route: sent.value };
      const items = ok.map((r) => ({ agent: agentRef(r.target), purge: what, purged: String(r.purged) }));
      printAgentAnswers(io, flags.output, { results, skipped }, { apiVersion: "v1", kind: "List", items }, {
        headers: ["AGENT", "NODE", "PURGED"],
        rows: () => ok.map((r) => [r.target.name, r.target.node, String(r.purged)]),
      });
    });
  addExamples(purge, [
    "# Drop everything on every agent\nedgectl cache purge --all",
    "# Responses for every subdomain of example.com\nedgectl cache purge --hostname '*.example.com'",
    "# Responses of route web in namespace shop\nedgectl cache purge --route web -n shop",
  ]);
}
