/**
 * What `vault-init uninstall` does once its flags are parsed: the shared uninstall (uninstall_hosts.ts)
 * with vault-init's names, state file and key calls. It removes exactly the 'vault' entries install
 * wrote (an entry edited since is not guessed at), and revokes the API key once no config holds it,
 * signing in first so that a wrong password changes nothing.
 */
import { currentHostEnv, type UninstallChoices, uninstallHosts, type UninstallSpec } from "../mod.ts";
import type { Io } from "../../cli/mod.ts";
import { INSTALLER, requireSupportedPlatform } from "./install.ts";
import { readState, type State, statePath } from "./state.ts";
import { findVaultHost, KEEP_BACKUPS, SERVER_NAME, TAG, type VaultHost } from "./hosts.ts";
import { requireVault, revokeKey, withSession } from "./api.ts";

export interface UninstallOptions extends UninstallChoices {
  /** Only these hosts; undefined: every host install wired. */
  hosts?: VaultHost[];
}

export function runUninstall(o: UninstallOptions, io: Io): Promise<void> {
  const h = currentHostEnv();
  requireSupportedPlatform(h, "uninstall");
  return uninstallHosts(vaultInitUninstall(statePath(h)), { ...o, hosts: o.hosts?.map((v) => v.host) }, io);
}

/** The words for what happens to the key, as vault-init prints them. */
const KEY_STATUS = {
  revoked: "revoked",
  gone: "already gone",
  kept: "kept",
  "would be revoked": "would be revoked",
} as const;

function vaultInitUninstall(path: string): UninstallSpec<State> {
  return {
    tool: "vault-init",
    envPrefix: INSTALLER.envPrefix,
    notRecorded: "not wired by vault-init",
    serverName: SERVER_NAME,
    tag: TAG,
    keepBackups: KEEP_BACKUPS,
    findHost: (id) => findVaultHost(id)?.host,
    statePath: path,
    readState,
    stamp: (state) => ({ ...state, updatedAt: new Date().toISOString() }),
    beforeSignIn: requireVault,
    withSession,
    revoke: (state, cookie) => revokeKey(state.server, cookie, state.apiKey.id),
    secretLine: (state, outcome, stillUsedBy) =>
      `API key ${state.apiKey.name} (${state.apiKey.prefix}…) ${KEY_STATUS[outcome]}${
        stillUsedBy.length ? ` (still used by ${stillUsedBy.join(", ")})` : ""
      }\n`,
    dryRunLine: () => "dry run: nothing changed\n",
    summary: (state, outcome) => ({
      server: state.server,
      apiKey: {
        id: state.apiKey.id,
        prefix: state.apiKey.prefix,
        name: state.apiKey.name,
        status: KEY_STATUS[outcome],
      },
    }),
  };
}
