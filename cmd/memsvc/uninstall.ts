import { type Command, Option } from "@commander-js/extra-typings";
import { uninstallChoices, withUninstallFlags } from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { INSTALLER, parseHostIds } from "../../internal/agenthosts/memsvc/install.ts";
import { runUninstall } from "../../internal/agenthosts/memsvc/uninstall.ts";

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
      await runUninstall({
        ...uninstallChoices(flags),
        hosts: flags.hosts === undefined ? undefined : parseHostIds(flags.hosts),
        keepKey: flags.keepKey === true || flags.keepToken === true,
      }, io);
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
