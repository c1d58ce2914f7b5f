import type { CommandUnknownOpts } from "@commander-js/extra-typings";

/**
 * Appends an "Examples:" section to a command's help, kubectl style: each example is one or more
 * lines (a `# comment` line, then the command), indented, with a blank line between examples.
 */
export function addExamples<C extends CommandUnknownOpts>(command: C, examples: readonly string[]): C {
  if (examples.length === 0) return command;
  const body = examples
    .map((example) => example.split("\n").map((line) => `  ${line}`).join("\n"))
    .join("\n\n");
  return command.addHelpText("after", `\nExamples:\n${body}`);
}
