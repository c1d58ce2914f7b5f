/**
 * `edgectl check`: is the edge proxy healthy in this cluster? In the spirit of `linkerd check`: the
 * edgeproxy.io CRDs installed and established, the controller and every agent Pod Ready, and the
 * proxy's GatewayClasses Accepted. Exit 1 when any check fails (warnings do not fail).
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { type Category, formatReport, report } from "../../internal/edgeproxy/check_results.ts";
import { DEFAULT_CONTROLLER } from "../../internal/edgeproxy/gateway_api_view.ts";
import { OUTPUT_ENV, proxyNamespaceOption, useKubeOptions, withSession } from "./flags.ts";
import { crdChecks, gatewayClassChecks, podChecks } from "../../internal/edgeproxy/checks.ts";

export function registerCheck(program: Command, io: Io) {
  const command = program
    .command("check")
    .summary("Check that the edge proxy is installed and healthy; exit 1 when a check fails")
    .description(
      "Check the edge proxy in the cluster, as `linkerd check` does: the edgeproxy.io CRDs are installed " +
        "and established, the controller and every agent Pod (labels app.kubernetes.io/name=edgeproxy, " +
        "app.kubernetes.io/component=controller|agent, in --proxy-namespace) are Ready, and the proxy's " +
        "GatewayClasses are Accepted. Prints √ for a passed check, ‼ for a warning and × for a failure; " +
        "exits 1 when any check fails.",
    )
    .addOption(proxyNamespaceOption())
    .option("--controller-name <name>", "The proxy's Gateway API controller name", DEFAULT_CONTROLLER)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client }) => {
        const categories: Category[] = [
          { categoryName: "edgeproxy-crds", checks: await crdChecks(client) },
          {
            categoryName: "edgeproxy-controller",
            checks: await podChecks(client, flags.proxyNamespace, "controller"),
          },
          {
            categoryName: "edgeproxy-agents",
            checks: await podChecks(client, flags.proxyNamespace, "agent"),
          },
          { categoryName: "gateway-api", checks: await gatewayClassChecks(client, flags.controllerName) },
        ];
        const result = report(categories);
        printResult(io, result, flags.output, formatReport);
        if (!result.success) throw new CliError("some checks failed");
      });
    });
  useKubeOptions(command);
  addExamples(command, [
    "# Check the proxy installed in edge-system\nedgectl check",
    "# Installed elsewhere, as JSON for scripts\nedgectl check --proxy-namespace proxy -o json",
  ]);
}
