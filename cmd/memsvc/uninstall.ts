import { type Command, Option } from "@commander-js/extra-typings";
import {
  currentHostEnv,
  findHost,
  installStatePath,
  uninstallHosts,
  uninstallOptions,
  type UninstallSpec,
  withUninstallFlags,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { INSTALLER, parseHostIds, SERVER_NAME } from "./install.ts";
import { INSTALL_STATE, type InstallState } from "./install_state.ts";
import { deleteToken, withSession } from "./memsvc_api.ts";

/** `memsvc uninstall`: remove the entries `memsvc install` wrote and revoke its API token. */
export function registerUninstall(program: Command, io: Io): void {
  const command = program
    .command("uninstall")
    .summary("Remove memsvc from the agent hosts and revoke its token")
    .description(
      "Remove the memsvc entries that `memsvc install` wrote, and revoke its API token. An entry still as " +
        "written is removed and the rest of the file is left as it is now (servers added since stay). An " +
        "entry edited since install is not guessed at: when nothing else in the file changed, the backup " +
        "from before install is restored; otherwise the file is left as it is unless --force, which removes " +
        "the entry and nothing else. Revoking needs the account's password again (asked for, " +
        "--password-stdin or MEMSVC_PASSWORD); it happens once no config holds the token any more, and " +
        "--keep-key skips it. The state file goes when nothing is left. The flags are vault-init's.",
    );
  const uninstall = withUninstallFlags(command, INSTALLER)
    .addOption(keepTokenAlias())
    .action(async (flags) => {
      const hosts = flags.hosts === undefined ? undefined : parseHostIds(flags.hosts);
      const options = uninstallOptions(
        { ...flags, keepKey: flags.keepKey ?? flags.keepToken },
        INSTALLER,
        hosts,
      );
      await uninstallHosts(memsvcUninstall(installStatePath("memsvc", currentHostEnv())), options, io);
    });
  addExamples(uninstall, [
    "# Remove every entry memsvc install wrote and revoke its token (asks for the password)\nmemsvc uninstall",
    "# Only Cursor; the token stays, since other hosts still use it\nmemsvc uninstall --hosts cursor",
    "# Unattended\npass show memsvc | memsvc uninstall --email ada@example.com --password-stdin --yes",
  ]);
}

/** `--keep-token`, this tool's older spelling of `--keep-key`: still accepted, no longer shown. */
function keepTokenAlias() {
  return new Option("--keep-token", "the older spelling of --keep-key").hideHelp();
}

/** memsvc's names, state file and token calls for the shared uninstall (internal/agenthosts). */
function memsvcUninstall(statePath: string): UninstallSpec<InstallState> {
  const label = (state: InstallState) => state.tokenLabel ?? state.tokenHash;
  return {
    tool: "memsvc",
    notRecorded: "not installed by memsvc install",
    serverName: SERVER_NAME,
    tag: SERVER_NAME,
    findHost,
    statePath,
    format: INSTALL_STATE,
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
