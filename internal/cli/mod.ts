/**
 * The command framework every binary shares, on commander with typed flags. A command follows
 * kubectl's shape: flags parse into a typed options object, validation runs before any I/O (a bad
 * value is a usage error: `command.error(message)`, exit 2), the action does the work, and
 * `printResult` turns the result into `-o table|json|yaml` output.
 *
 * @example
 * export function buildProgram(io: Io = processIo) {
 *   const program = createProgram({ name: "edgectl", summary: "…", examples: ["…"], docs: "…", io });
 *   program
 *     .command("get")
 *     .description("List gateways")
 *     .addOption(envOption("-n, --namespace <name>", "Namespace", "EDGECTL_NAMESPACE").default("default"))
 *     .addOption(outputOption({ env: "EDGECTL_OUTPUT" }))
 *     .action(async (flags, command) => {
 *       if (!isDnsLabel(flags.namespace)) command.error(`invalid namespace '${flags.namespace}'`);
 *       const list = await client.listGateways(flags.namespace);
 *       printResult(io, list, flags.output, {
 *         headers: ["name", "vip", "age"],
 *         rows: (l) => l.items.map((g) => [g.metadata.name, g.spec.vipRef?.name, age(g)]),
 *         empty: `No resources found in ${flags.namespace} namespace.`,
 *       });
 *     });
 *   return program;
 * }
 *
 * if (import.meta.main) await run(buildProgram());
 */
export { CliError } from "./cli_error.ts";
export { createProgram, type ProgramOptions } from "./create_program.ts";
export { envOption } from "./env_option.ts";
export { addExamples } from "./examples.ts";
export { scopeGlobalOptions, useGlobalOptions, usesGlobalOption } from "./global_options.ts";
export { type Io, processIo, type Writer } from "./io.ts";
export { canPrompt, confirm, promptLine, promptSecret, readStdin } from "./prompt.ts";
export { OUTPUT_FORMATS, type OutputFormat, outputOption, wideOutputOption } from "./output_option.ts";
export {
  type Cell,
  formatTable,
  printResult,
  printYamlStream,
  type TablePrinter,
  type TableSpec,
} from "./printers.ts";
export { DESCRIBE_LAYOUT, DescribeWriter } from "./describe.ts";
export { untilInterrupted } from "./interrupt.ts";
export { progressBar } from "./progress_bar.ts";
export { isMain } from "./is_main.ts";
export { execute, run } from "./run.ts";
export { tabwrite, type TabwriterOptions, tabwriteRows } from "./tabwriter.ts";
