import { Command, type Help } from "@commander-js/extra-typings";
import { VERSION_LINE } from "../version/version.ts";
import { addExamples } from "./examples.ts";
import { visibleGlobalOptions } from "./global_options.ts";
import { type Io, processIo } from "./io.ts";
import { addVersionCommand } from "./version_command.ts";

export interface ProgramOptions {
  /** The binary's name, as users type it. */
  name: string;
  /** One paragraph: what the tool is. First thing `--help` prints. */
  summary: string;
  /** More paragraphs after the summary. */
  description?: string;
  /** Realistic invocations, each `# what it does\ncommand`; shown under "Examples:". */
  examples: readonly string[];
  /** Where to read more; printed as the last line of `--help`. */
  docs: string;
  /** Environment variable backing `-o` (e.g. EDGECTL_OUTPUT), for tools whose commands honour one. */
  outputEnv?: string;
  /** False when the tool registers its own `version` command (edgectl also prints the server's). */
  versionCommand?: boolean;
  io?: Io;
  /** The tool's commands (and global options), each registered on the program in this order. */
  commands?: readonly ((program: Command, io: Io) => unknown)[];
}

/**
 * The root command every binary starts from: help (`-h, --help`, `help [command]`), `--version` and
 * a `version` command, output wired to `io`. Register the tool's commands on it with `.command(...)`
 * and start it with `run`, which turns errors into exit codes.
 */
export function createProgram(options: ProgramOptions): Command {
  const io = options.io ?? processIo;
  const program = new Command(options.name)
    .description([options.summary, options.description].filter(Boolean).join("\n\n"))
    .version(VERSION_LINE, "--version", "Print the version")
    .helpOption("-h, --help", "Show help")
    .helpCommand("help [command]", "Show help for a command")
    .configureHelp({
      sortSubcommands: true,
      showGlobalOptions: true,
      visibleGlobalOptions(this: Help, cmd) {
        return visibleGlobalOptions(this, cmd);
      },
    })
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  addExamples(program, options.examples);
  program.addHelpText("after", `\nDocumentation: ${options.docs}`);
  if (options.versionCommand !== false) addVersionCommand(program, io, options.outputEnv);
  for (const register of options.commands ?? []) register(program, io);
  return program;
}
