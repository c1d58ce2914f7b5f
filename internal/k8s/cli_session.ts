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
import { envOption } from "../cli/mod.ts";
import type { KubeClient } from "./client.ts";

/** The global flags, accepted before or after the command name. */
export function addKubeOptions(program: Command, envPrefix: string) {
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

/** Runs `fn` with a client for the selected kubeconfig and context; closes it afterwards. */
export async function withKubeSession<T>(
  command: CommandUnknownOpts,
  userAgent: string,
  fn: (session: KubeSession) => Promise<T>,
): Promise<T> {
  const flags = command.optsWithGlobals() as KubeFlags;
  // Loaded here, not at the top: the flags are registered at every start, the client only runs in commands.
  const { KubeClient } = await import("./client.ts");
  const client = KubeClient.fromKubeconfig({
    ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}),
    ...(flags.context ? { context: flags.context } : {}),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
    userAgent,
  });
  try {
    return await fn({ client, namespace: client.namespace });
  } finally {
    client.close();
  }
}
