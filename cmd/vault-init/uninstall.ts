import type { Command } from "@commander-js/extra-typings";
import {
  currentHostEnv,
  getCredentials,
  removalLine,
  type UninstallAction,
  uninstallEntry,
  type UninstallResult,
  untouchedLine,
  withUninstallFlags,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, CliError, type Io, printResult } from "../../internal/cli/mod.ts";
import { INSTALLER, requireSupportedPlatform } from "./install.ts";
import { readState, removeState, type State, statePath, writeState } from "./state.ts";
import {
  findVaultHost,
  KEEP_BACKUPS,
  parseHostIds,
  SERVER_NAME,
  TAG,
  type VaultHost,
} from "./vault_hosts.ts";
import { requireVault, revokeKey, withSession } from "./vault_api.ts";

interface Removal extends UninstallResult {
  v: VaultHost;
}

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
      const path = statePath(h);
      const state = await readState(path);
      if (!state) {
        io.stderr.write(`vault-init is not installed here (no ${path}); nothing to do\n`);
        return;
      }
      const recorded = Object.entries(state.hosts).flatMap(([id, record]) => {
        const v = findVaultHost(id);
        return v ? [{ v, record }] : [];
      });
      for (const v of named ?? []) {
        if (!state.hosts[v.host.id]) io.stderr.write(`${v.host.id}: not wired by vault-init, skipped\n`);
      }
      const selected = named ? recorded.filter(({ v }) => named.includes(v)) : recorded;
      const force = flags.force === true;

      // Decided before anything changes: the key is revoked only once no recorded config holds it.
      const plan = await Promise.all(selected.map(({ v, record }) => removeOne(v, record, force, true)));
      for (const r of plan) if (r.error) io.stderr.write(untouchedLine(r.v.host.id, r.error));
      const left = new Set(Object.keys(state.hosts));
      for (const r of plan) if (gone(r.action)) left.delete(r.v.host.id);
      const revoke = left.size === 0 && flags.keepKey !== true;
      if (flags.dryRun) {
        printRemovals(io, plan, flags.output, state, revoke ? "would be revoked" : "kept");
        io.stderr.write("dry run: nothing changed\n");
        return;
      }

      const run = async (cookie?: string) => {
        const results = [];
        for (const { v, record } of selected) {
          const r = await removeOne(v, record, force, false);
          results.push(r);
          if (r.action !== "invalid") io.stderr.write(removalLine(v.host.id, r, SERVER_NAME));
          if (gone(r.action)) delete state.hosts[v.host.id];
        }
        let key = "kept";
        if (cookie) {
          key = (await revokeKey(state.server, cookie, state.apiKey.id)) ? "revoked" : "already gone";
        }
        io.stderr.write(
          `API key ${state.apiKey.name} (${state.apiKey.prefix}…) ${key}${
            left.size ? ` (still used by ${[...left].join(", ")})` : ""
          }\n`,
        );
        if (Object.keys(state.hosts).length === 0) await removeState(path);
        else await writeState(path, { ...state, updatedAt: new Date().toISOString() });
        return { results, key };
      };
      let outcome;
      if (revoke) {
        // Sign in before touching any file: a wrong password then changes nothing.
        await requireVault(state.server);
        const credentials = await getCredentials({
          email: flags.email,
          yes: flags.yes === true,
          passwordStdin: flags.passwordStdin === true,
          envPrefix: INSTALLER.envPrefix,
          env: process.env,
        });
        outcome = await withSession(state.server, credentials, run);
      } else outcome = await run();
      printRemovals(io, outcome.results, flags.output, state, outcome.key);
      const invalid = outcome.results.filter((r) => r.action === "invalid" || r.action === "drifted");
      if (invalid.length) {
        throw new CliError(
          `${invalid.length} host config(s) left as they were: ${invalid.map((r) => r.path).join(", ")}`,
        );
      }
    });
  addExamples(uninstall, [
    "# Remove every vault entry and revoke the key (asks for the password)\nvault-init uninstall",
    "# Only Cursor; the key stays, since other hosts still use it\nvault-init uninstall --hosts cursor",
    "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init uninstall --yes",
    "# What would happen, as YAML\nvault-init uninstall --dry-run -o yaml",
  ]);
}

const gone = (action: UninstallAction) =>
  action === "removed" || action === "restored" || action === "absent";

function removeOne(
  v: VaultHost,
  record: { path: string; entryHash: string },
  force: boolean,
  dryRun: boolean,
): Promise<Removal> {
  return uninstallEntry(v.host, record, SERVER_NAME, { tag: TAG, keepBackups: KEEP_BACKUPS, force, dryRun })
    .then((r) => ({ v, ...r }));
}

function printRemovals(
  io: Io,
  results: Removal[],
  output: "table" | "json" | "yaml",
  state: State,
  key: string,
): void {
  const hosts = results.map((r) => ({
    host: r.v.host.id,
    name: r.v.host.name,
    action: r.action,
    path: r.path,
    ...(r.backup && { backup: r.backup }),
    ...(r.error && { error: r.error.message }),
  }));
  const apiKey = { id: state.apiKey.id, prefix: state.apiKey.prefix, name: state.apiKey.name, status: key };
  printResult(io, { server: state.server, apiKey, hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No vault entries to remove.",
  });
}
