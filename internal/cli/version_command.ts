import type { Command } from "@commander-js/extra-typings";
import { COMMIT, VERSION, VERSION_LINE } from "../version/version.ts";
import { addExamples } from "./examples.ts";
import type { Io } from "./io.ts";
import { outputOption } from "./output_option.ts";
import { printResult } from "./printers.ts";

/** `<tool> version [-o table|json|yaml]`: the VERSION `--version` prints, in any output format. */
export function addVersionCommand(program: Command, io: Io, outputEnv?: string): void {
  const command = program
    .command("version")
    .description("Print the version")
    .addOption(outputOption({ env: outputEnv }))
    .action((flags) =>
      printResult(
        io,
        COMMIT ? { version: VERSION, commit: COMMIT } : { version: VERSION },
        flags.output,
        () => VERSION_LINE,
      )
    );
  addExamples(command, [
    `# Print the version\n${program.name()} version`,
    `# Print it as JSON: {"version": "${VERSION}"}\n${program.name()} version -o json`,
  ]);
}
