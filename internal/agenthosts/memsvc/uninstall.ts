/**
 * What `memsvc uninstall` does once its flags are parsed: the shared uninstall (uninstall_hosts.ts)
 * with memsvc's names, state file and token calls. It removes the memsvc entries install wrote (an
 * entry edited since is not guessed at), and revokes the API token once no config holds it, signing
 * in first so that a wrong password changes nothing.
 */
import {
  currentHostEnv,
  findHost,
  type InstallState,
  installStatePath,
  readInstallState,
  uninstallHosts,
  type UninstallOptions,
  type UninstallSpec,
} from "../mod.ts";
import type { Io } from "../../cli/mod.ts";
import { deleteToken, withSession } from "./api.ts";
import { INSTALLER, SERVER_NAME } from "./install.ts";

export type { UninstallOptions };

export function runUninstall(o: UninstallOptions, io: Io): Promise<void> {
  return uninstallHosts(memsvcUninstall(installStatePath("memsvc", currentHostEnv())), o, io);
}

function memsvcUninstall(statePath: string): UninstallSpec<InstallState> {
  const label = (state: InstallState) => state.tokenLabel ?? state.tokenHash;
  return {
    tool: "memsvc",
    envPrefix: INSTALLER.envPrefix,
    notRecorded: "not installed by memsvc install",
    serverName: SERVER_NAME,
    tag: SERVER_NAME,
    findHost,
    statePath,
    readState: readInstallState,
    withSession,
    revoke: (state, session) => deleteToken(state.server, session, state.tokenHash),
    secretLine: (state, outcome, stillUsedBy) =>
      outcome === "kept"
        ? `API token ${label(state)} kept${
          stillUsedBy.length ? ` (still used by ${stillUsedBy.join(", ")})` : ""
        }\n`
        : `API token ${label(state)} ${outcome === "revoked" ? "revoked" : "was already gone"}\n`,
    dryRunLine: (revoke) =>
      `dry run: nothing changed; the API token would be ${revoke ? "revoked" : "kept"}\n`,
  };
}
