import type { Command } from "@commander-js/extra-typings";
import {
  currentHostEnv,
  uninstallHosts,
  uninstallOptions,
  type UninstallSpec,
  withUninstallFlags,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import { INSTALLER, requireSupportedPlatform } from "./install.ts";
import { STATE, type State, statePath } from "./state.ts";
import { findVaultHost, KEEP_BACKUPS, parseHostIds, SERVER_NAME, TAG } from "./vault_hosts.ts";
import { requireVault, revokeKey, withSession } from "./vault_api.ts";

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
      const named = flags.hosts === undefined ? undefined : parseHostIds(flags.hosts);
      const h = currentHostEnv();
      requireSupportedPlatform(h, "uninstall");
      const options = uninstallOptions(flags, INSTALLER, named?.map((v) => v.host));
      await uninstallHosts(vaultInitUninstall(statePath(h)), options, io);
    });
  addExamples(uninstall, [
    "# Remove every vault entry and revoke the key (asks for the password)\nvault-init uninstall",
    "# Only Cursor; the key stays, since other hosts still use it\nvault-init uninstall --hosts cursor",
    "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init uninstall --yes",
    "# What would happen, as YAML\nvault-init uninstall --dry-run -o yaml",
  ]);
}

/** vault-init's names, state file and key calls for the shared uninstall (internal/agenthosts). */
function vaultInitUninstall(path: string): UninstallSpec<State> {
  const words = {
    revoked: "revoked",
    gone: "already gone",
    kept: "kept",
    "would be revoked": "would be revoked",
  };
  return {
    tool: "vault-init",
    notRecorded: "not wired by vault-init",
    serverName: SERVER_NAME,
    tag: TAG,
    keepBackups: KEEP_BACKUPS,
    findHost: (id) => findVaultHost(id)?.host,
    statePath: path,
    format: STATE,
    stamp: (state) => ({ ...state, updatedAt: new Date().toISOString() }),
    beforeSignIn: requireVault,
    withSession,
    revoke: (state, cookie) => revokeKey(state.server, cookie, state.apiKey.id),
    secretLine: (state, outcome, stillUsedBy) =>
      `API key ${state.apiKey.name} (${state.apiKey.prefix}…) ${words[outcome]}${
        stillUsedBy.length ? ` (still used by ${stillUsedBy.join(", ")})` : ""
      }\n`,
    dryRunLine: () => "dry run: nothing changed\n",
    summary: (state, outcome) => ({
      server: state.server,
      apiKey: {
        id: state.apiKey.id,
        prefix: state.apiKey.prefix,
        name: state.apiKey.name,
        status: words[outcome],
      },
    }),
  };
}
