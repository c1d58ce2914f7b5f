/**
 * What every kubectl-style CLI of the toolkit shares (edgectl, gitsync): the global flags
 * --kubeconfig, --context and -n (each also read from `<PREFIX>_CONTEXT` / `<PREFIX>_NAMESPACE`),
 * and a session with the client they select, closed when the command is done.
 *
 * @example
 * addKubeOptions(program, "GITSYNC");
 * program.command("apps").action(async (flags, cmd) => {
 *   await withKubeSession(cmd, "gitsync/1.0.0", async ({ client, namespace }) => { ... });
 * });
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { envOption, scopeGlobalOptions, useGlobalOptions, usesGlobalOption } from "../cli/mod.ts";
import type { KubeClient } from "./client.ts";

/**
 * The global flags, accepted before or after the command name. With `scoped`, a command's help lists
 * them only when it declares that it uses them (useKubeOptions); the others still accept them, as
 * kubectl's commands accept its global flags, so one alias with --kubeconfig works for every command.
 */
export function addKubeOptions(program: Command, envPrefix: string, options: { scoped?: boolean } = {}) {
  if (options.scoped) scopeGlobalOptions(program, ["kubeconfig", "context", "namespace"]);
  return program
    .option("--kubeconfig <path>", "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
    .addOption(
      envOption(
        "--context <name>",
        "Kubeconfig context to use (default: current-context)",
        `${envPrefix}_CONTEXT`,
      ),
    )
    .addOption(
      envOption(
        "-n, --namespace <name>",
        "Namespace to use (default: the context's namespace, else default)",
        `${envPrefix}_NAMESPACE`,
      ),
    );
}

/**
 * Declares that `command` (and its subcommands) talks to the cluster: --kubeconfig and --context, and
 * -n when `namespace` is given (true, or the flag's help text for this command). Only these show in
 * its help, and withKubeSession and kubeNamespace refuse to serve a command that did not declare them.
 */
export function useKubeOptions(command: CommandUnknownOpts, options: { namespace?: true | string } = {}) {
  useGlobalOptions(command, {
    kubeconfig: true,
    context: true,
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
}

/** Declares that `command` reads -n without contacting a cluster (e.g. the namespace of a manifest). */
export function useNamespaceOption(command: CommandUnknownOpts, help: true | string = true) {
  useGlobalOptions(command, { namespace: help });
}

/** A command reading a flag it does not show in its help: a defect of the command, not the user's. */
function assertDeclared(command: CommandUnknownOpts, name: string) {
  if (!usesGlobalOption(command, name)) {
    throw new Error(`internal error: command '${command.name()}' reads --${name} but does not declare it`);
  }
}

/** The -n flag as given (or from `<PREFIX>_NAMESPACE`), for commands that need it without a session. */
export function kubeNamespace(command: CommandUnknownOpts): string | undefined {
  assertDeclared(command, "namespace");
  return (command.optsWithGlobals() as KubeFlags).namespace;
}

interface KubeFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

export interface KubeSession {
  client: KubeClient;
  /** The namespace commands work in: -n, `<PREFIX>_NAMESPACE`, the context's, else "default". */
  namespace: string;
}

/**
 * A client for the kubeconfig and context the flags select; the caller closes it. The client's module
 * loads here, not at the top: every start registers the flags, only commands that call this need it.
 */
export async function kubeClientFor(command: CommandUnknownOpts, userAgent: string): Promise<KubeClient> {
  assertDeclared(command, "kubeconfig");
  const flags = command.optsWithGlobals() as KubeFlags;
  const { KubeClient } = await import("./client.ts");
  return KubeClient.fromKubeconfig({
    ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}),
    ...(flags.context ? { context: flags.context } : {}),
    ...(flags.namespace && usesGlobalOption(command, "namespace") ? { namespace: flags.namespace } : {}),
    userAgent,
  });
}

/** Runs `fn` with a client for the selected kubeconfig and context; closes it afterwards. */
export async function withKubeSession<T>(
  command: CommandUnknownOpts,
  userAgent: string,
  fn: (session: KubeSession) => Promise<T>,
): Promise<T> {
  const client = await kubeClientFor(command, userAgent);
  const session = {
    client,
    get namespace() {
      assertDeclared(command, "namespace");
      return client.namespace;
    },
  };
  try {
    return await fn(session);
  } finally {
    client.close();
  }
}
