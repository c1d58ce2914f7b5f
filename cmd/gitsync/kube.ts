/**
 * What every gitsync command shares: the global flags (--kubeconfig, --context, -n, also from
 * GITSYNC_CONTEXT / GITSYNC_NAMESPACE) and the session. Reads of gitsync's objects with errors a user
 * can act on are controller/gitsync/client's.
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { type Io, outputOption, printResult, type TablePrinter } from "../../internal/cli/mod.ts";
import { addKubeOptions, type KubeSession, withKubeSession } from "../../internal/k8s/cli_session.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";

export const OUTPUT_ENV = "GITSYNC_OUTPUT";

export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "GITSYNC");
}

export function withSession<T>(command: CommandUnknownOpts, fn: (s: KubeSession) => Promise<T>): Promise<T> {
  return withKubeSession(command, `gitsync/${TOOL_VERSION}`, fn);
}

/** The argument of the commands about one Application. */
export const APPLICATION_ARG: [string, string] = ["<application>", "Application name"];

/** What a read prints: the document -o json|yaml shows, and how it looks as text or a table. */
export interface Shown<T> {
  document: T;
  text: TablePrinter<T>;
}

/**
 * The rest of a command that reads about one object named by its argument (`get`, `revision`,
 * `history`, `logs`): the argument, -o, and the session the read runs in; then prints what it returns.
 */
export function readsOne<T>(
  command: Command,
  io: Io,
  argument: readonly [name: string, description: string],
  read: (session: KubeSession, name: string) => Promise<Shown<T>>,
) {
  return command
    .argument(...argument)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      const { document, text } = await withSession(cmd, (session) => read(session, name));
      printResult(io, document, flags.output, text);
    });
}
