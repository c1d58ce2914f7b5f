import { CommanderError, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { CliError } from "./cli_error.ts";

/**
 * Runs `program` as the process's entry point and sets `process.exitCode` rather than calling
 * `process.exit`, so everything written to stdout is flushed before the process ends.
 */
export async function run(program: CommandUnknownOpts, args: readonly string[] = process.argv.slice(2)) {
  process.stdout.on("error", exitWhenReaderGone);
  process.exitCode = await execute(program, args);
}

/**
 * When the reader of stdout goes away (`edgectl get gw | head -1`), Deno and Bun raise EPIPE as an
 * uncaught error with a stack trace. Nothing more can be delivered, so stop quietly with 0, as
 * ripgrep does; exiting here also ends commands that would otherwise stream forever (`logs -f`).
 */
function exitWhenReaderGone(err: Error & { code?: string }) {
  if (err.code !== "EPIPE") throw err;
  process.exit(0);
}

/**
 * Parses `args` (user arguments, without the executable), runs the matched command and returns the
 * exit code: 0 ok (including `--help`, `--version`), 1 a command failed, 2 a usage error (unknown
 * command or option, missing or invalid value, no command given). As kubectl does, a failure prints
 * one line, `error: <message>`, and a usage error adds a second, `Run '<command> --help' for usage.`,
 * whether commander found it or the command did (`command.error(...)`, or a CliError with exit code 2).
 */
export async function execute(program: CommandUnknownOpts, args: readonly string[]): Promise<number> {
  const output = program.configureOutput();
  configureErrors(program, program.name());
  let running: CommandUnknownOpts = program;
  program.hook("preAction", (_program, command) => {
    running = command;
  });
  // Without the help request, commander reports the unknown command itself (with a suggestion).
  const stray = wordForDefaultCommand(program, args);
  if (stray !== undefined) {
    output.writeErr?.(`error: unknown command '${stray}'\n${usageHint(program.name())}\n`);
    return 2;
  }
  const parsed = hasUnknownCommand(program, args)
    ? args.filter((a, i) => a !== "-h" && a !== "--help" && !(a === "help" && i === args.indexOf("help")))
    : args;
  try {
    await program.parseAsync(parsed, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExitCode(err);
    const code = err instanceof CliError ? err.exitCode : 1;
    output.writeErr?.(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (code === 2) output.writeErr?.(`${usageHint(commandPath(running))}\n`);
    if (process.env.DEBUG && err instanceof Error && err.stack) output.writeErr?.(`${err.stack}\n`);
    return code;
  }
}

/**
 * Commander answers `tool bogus --help` (and `tool help bogus`) with the root help and exit 0, as if
 * `bogus` existed; a command that does not exist is a usage error with or without --help. Walks the
 * arguments the way commander matches them (skipping options and their values): true when help is
 * asked for and a word names no command where a command is expected.
 */
function hasUnknownCommand(program: CommandUnknownOpts, args: readonly string[]): boolean {
  if (!args.some((a) => a === "-h" || a === "--help" || a === "help")) return false;
  let command = program;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return false;
    if (arg.startsWith("-")) {
      if (!arg.includes("=") && takesValue(command, arg)) i++;
      continue;
    }
    if (command.commands.length === 0) return false;
    if (arg === "help" && command === program) continue;
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) return command.registeredArguments.length === 0;
    command = sub;
  }
  return false;
}

/**
 * A tool with a default command (`vault-init` runs `install`) hands commander's unknown words to that
 * command, which reports "too many arguments for 'install'" for `vault-init bogus`. When the default
 * command takes no arguments, the first word that names no command is the unknown command it is.
 */
function wordForDefaultCommand(program: CommandUnknownOpts, args: readonly string[]): string | undefined {
  // Commander keeps the default command's name in a private field; there is no public accessor.
  const name = (program as unknown as { _defaultCommandName?: string })._defaultCommandName;
  const fallback = name ? program.commands.find((c) => c.name() === name) : undefined;
  if (!fallback || fallback.registeredArguments.length > 0) return undefined;
  let sawHelp = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return undefined;
    if (arg.startsWith("-")) {
      if (!arg.includes("=") && (takesValue(program, arg) || takesValue(fallback, arg))) i++;
      continue;
    }
    // `help <word>` asks about <word>: that is the word to check.
    if (arg === "help" && !sawHelp) {
      sawHelp = true;
      continue;
    }
    const known = program.commands.some((c) => c.name() === arg || c.aliases().includes(arg));
    return known ? undefined : arg;
  }
  return undefined;
}

/** Whether `flag` is an option of `command` or an ancestor that takes a value (`-n ns`, `--output json`). */
function takesValue(command: CommandUnknownOpts, flag: string): boolean {
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    const option = c.options.find((o) => o.short === flag || o.long === flag);
    if (option) return option.required || option.optional;
  }
  return false;
}

/**
 * Commander copies these settings only into subcommands created with `.command()`, and only at that
 * moment; applying them to the whole tree right before parsing covers every command however added,
 * and lets the hint name the command that was used wrongly.
 */
function configureErrors(command: CommandUnknownOpts, path: string, output = command.configureOutput()) {
  command
    .exitOverride()
    .configureOutput({ ...output, outputError: (message, write) => write(oneLine(message)) })
    .showHelpAfterError(usageHint(path));
  for (const sub of command.commands) configureErrors(sub, `${path} ${sub.name()}`, output);
}

/** The line a usage error ends with, as kubectl's. */
function usageHint(commandPath: string): string {
  return `Run '${commandPath} --help' for usage.`;
}

/** "edgectl generate systemd-unit": the words that run `command`. */
function commandPath(command: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Commander puts "(Did you mean …?)" on a second line; keep the error to one line. */
function oneLine(message: string): string {
  const text = message.trim().replace(/\s*\n\s*/g, " ");
  return `${text.startsWith("error: ") ? text : `error: ${text}`}\n`;
}

function commanderExitCode(err: CommanderError): number {
  switch (err.code) {
    case "commander.helpDisplayed":
    case "commander.version":
      return 0;
    case "commander.help":
      // `help` asked for exits 0; help shown because no command was given exits non-zero.
      return err.exitCode === 0 ? 0 : 2;
    default:
      // Every other CommanderError is a usage error: commander reports them all with exit code 1.
      return 2;
  }
}
