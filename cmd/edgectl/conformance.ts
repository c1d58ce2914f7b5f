/**
 * `edgectl conformance` (also `edgectl gateway-api conformance`): the live state of the proxy's
 * GatewayClasses, Gateways and HTTPRoutes, or a ConformanceReport file checked and shown.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { formatReport } from "../../internal/edgeproxy/conformance_report.ts";
import { listGatewayApi, readConformanceReport } from "../../internal/edgeproxy/gateway_api.ts";
import {
  DEFAULT_CONTROLLER,
  formatLiveConformance,
  liveConformance,
} from "../../internal/edgeproxy/gateway_api_view.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";

/**
 * `conformance` on `parent`: the seed's command table has it as `edgectl conformance`, and it is also
 * `edgectl gateway-api conformance`; both spellings are the same command.
 */
export function registerConformance(parent: Command, io: Io) {
  const conformance = parent
    .command("conformance")
    .summary("Check the proxy's GatewayClasses, Gateways and HTTPRoutes, or validate a ConformanceReport")
    .description(
      "Without -f: the GatewayClasses whose spec.controllerName is --controller-name, their conditions " +
        "and supported features, and the Gateways and HTTPRoutes that use them; exits 1 when no such " +
        "class is Accepted. With -f: validate a Gateway API ConformanceReport (YAML or JSON) and print its " +
        "profiles, results and features; exits 1 and names every problem when it is not valid.",
    )
    .option("-f, --filename <file>", "A ConformanceReport file to validate and show")
    .option("--controller-name <name>", "The proxy's Gateway API controller name", DEFAULT_CONTROLLER)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      if (flags.filename !== undefined) {
        printResult(io, await readConformanceReport(flags.filename), flags.output, formatReport);
        return;
      }
      await withSession(cmd, async ({ client }) => {
        const [classes, gateways, routes] = [
          await listGatewayApi(client, "gatewayclasses", undefined),
          await listGatewayApi(client, "gateways", undefined),
          await listGatewayApi(client, "httproutes", undefined),
        ];
        const live = liveConformance(flags.controllerName, classes, gateways, routes);
        printResult(io, live, flags.output, formatLiveConformance);
        if (!live.gatewayClasses.some((c) => c.accepted)) {
          throw new CliError(`no GatewayClass of controller ${flags.controllerName} is Accepted`);
        }
      });
    });
  useKubeOptions(conformance);
  addExamples(conformance, [
    "# Live conformance of the proxy's classes\nedgectl conformance",
    "# Validate and show a conformance report\nedgectl conformance -f conformance-report.yaml",
  ]);
}
