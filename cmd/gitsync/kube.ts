/**
 * What every gitsync command shares: the global flags (--kubeconfig, --context, -n, also from
 * GITSYNC_CONTEXT / GITSYNC_NAMESPACE) and the session. Reads of gitsync's objects with errors a user
 * can act on are controller/gitsync/client's.
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { addKubeOptions, type KubeSession, withKubeSession } from "../../internal/k8s/cli_session.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";

export const OUTPUT_ENV = "GITSYNC_OUTPUT";

export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "GITSYNC");
}

export function withSession<T>(command: CommandUnknownOpts, fn: (s: KubeSession) => Promise<T>): Promise<T> {
  return withKubeSession(command, `gitsync/${TOOL_VERSION}`, fn);
}
