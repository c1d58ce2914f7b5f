/** `vault-init uninstall`: its flags; the work is internal/agenthosts/vault_init/uninstall.ts. */
import type { Command } from "@commander-js/extra-typings";
import { uninstallChoices, withUninstallFlags } from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { INSTALLER } from "../../internal/agenthosts/vault_init/install.ts";
import { parseHostIds } from "../../internal/agenthosts/vault_init/hosts.ts";
import { runUninstall } from "../../internal/agenthosts/vault_init/uninstall.ts";

/** `vault-init uninstall`. */
export function registerUninstall(program: Command, io: Io): void {
  const command = program
    .command("uninstall")
    .summary("Remove the vault entries vault-init wrote and revoke its API key")
    .description(
      "Remove exactly the 'vault' entries that vault-init install wrote. An entry still as written (its " +
        "canonical SHA-256 matches the recorded one) is removed and the rest of the file is left as it is, " +
        "whatever the host or you did to it since (servers added after install stay). An entry edited by " +
        "hand is not guessed at: when nothing else in the file changed since install, the vault-init backup " +
        "from before install is restored (the edited file is backed up first); otherwise the file is left " +
        "as it is unless --force, which removes the entry and nothing else. A file that does not parse is " +
        "left untouched. Once no config holds the key, it is revoked on the server (its next use is refused " +
        "with 401): that needs a sign-in (--email or VAULT_EMAIL, and VAULT_PASSWORD, --password-stdin, or " +
        "asked); " +
        "--keep-key skips it. The state file goes when nothing is left.",
    );
  const uninstall = withUninstallFlags(command, INSTALLER)
    .action(async (flags) => {
      await runUninstall({
        ...uninstallChoices(flags),
        hosts: flags.hosts === undefined ? undefined : parseHostIds(flags.hosts),
      }, io);
    });
  addExamples(uninstall, [
    "# Remove every vault entry and revoke the key (asks for the password)\nvault-init uninstall",
    "# Only Cursor; the key stays, since other hosts still use it\nvault-init uninstall --hosts cursor",
    "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init uninstall --yes",
    "# What would happen, as YAML\nvault-init uninstall --dry-run -o yaml",
  ]);
}
