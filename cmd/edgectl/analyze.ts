/**
 * `edgectl analyze -f <file|dir>`: offline checks of manifests before they are applied (see
 * internal/edgeproxy/analyze_rules.ts for the codes). Exit 1 when a finding reaches --failure-threshold (default Error),
 * as `istioctl analyze` does, so CI can gate on it.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { readManifests } from "../../internal/k8s/manifests.ts";
import { analyze, formatFinding, type Level, LEVELS } from "../../internal/edgeproxy/analyze_rules.ts";
import { kubeNamespace, OUTPUT_ENV, useNamespaceOption } from "./flags.ts";

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerAnalyze(program: Command, io: Io) {
  const command = program
    .command("analyze")
    .summary(
      "Find mistakes in manifests offline: missing backends, dangling policy targets, duplicate hostnames",
    )
    .description(
      "Analyze edge proxy manifests without a cluster and report findings with codes: EP0101 a route " +
        "to a missing backend, EP0102 a policy whose target does not exist, EP0103 a hostname claimed by " +
        "several routes, EP0104 a gateway whose VIP does not exist, EP0105 two listeners on one port and " +
        "hostname, EP0106 a backend no route uses. References are resolved among the given files only. " +
        "Exits 1 when a finding is at or above --failure-threshold.",
    )
    .requiredOption(
      "-f, --filename <file|dir|->",
      "Manifests to analyze (repeatable; - for stdin)",
      collect,
      [],
    )
    .option("-R, --recursive", "Read directories recursively", false)
    .addOption(
      new Option("--failure-threshold <level>", "Lowest level that makes the exit code 1")
        .choices(LEVELS)
        .default("Error" as Level),
    )
    .addOption(
      new Option("--output-threshold <level>", "Lowest level that is printed").choices(LEVELS).default(
        "Info" as Level,
      ),
    )
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      if (flags.filename.length === 0) cmd.error("error: -f <file|dir|-> is required");
      const namespace = kubeNamespace(cmd) ?? "default";
      const manifests = await readManifests(flags.filename, { recursive: flags.recursive });
      const all = analyze(
        manifests.map((m) => ({ object: m.object, origin: `${m.source}:${m.index}` })),
        namespace,
      );
      const rank = (l: Level) => LEVELS.indexOf(l);
      const findings = all.filter((f) => rank(f.level) >= rank(flags.outputThreshold));
      if (findings.length === 0 && flags.output === "table") {
        io.stderr.write(
          `✔ No validation issues found when analyzing ${
            flags.filename.map((f) => f === "-" ? "stdin" : f).join(", ")
          }.\n`,
        );
      } else {
        printResult(io, { findings }, flags.output, (v) => v.findings.map(formatFinding).join("\n"));
      }
      const failing = all.filter((f) => rank(f.level) >= rank(flags.failureThreshold)).length;
      if (failing > 0) {
        throw new CliError(`${failing} finding(s) at or above ${flags.failureThreshold}`);
      }
    });
  useNamespaceOption(command, "Namespace of the manifests that name none (default: default)");
  addExamples(command, [
    "# Analyze a directory of manifests before applying it\nedgectl analyze -f manifests/",
    "# Fail CI on warnings too, as JSON\nedgectl analyze -f manifests/ --failure-threshold Warning -o json",
    "# Only errors and warnings, from stdin\ncat app.yaml | edgectl analyze -f - --output-threshold Warning",
  ]);
}
