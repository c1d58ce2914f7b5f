import { type Command, Option } from "@commander-js/extra-typings";
import {
  type AgentHost,
  currentHostEnv,
  findHost,
  getCredentials,
  installStatePath,
  readInstallState,
  removalLine,
  removeInstallState,
  uninstallEntry,
  type UninstallResult,
  untouchedLine,
  withUninstallFlags,
  writeInstallState,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, CliError, type Io, printResult } from "../../internal/cli/mod.ts";
import { deleteToken, INSTALLER, parseHostIds, SERVER_NAME, withSession } from "./install.ts";

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
      const named = flags.hosts === undefined ? undefined : parseHostIds(flags.hosts);
      const h = currentHostEnv();
      const statePath = installStatePath("memsvc", h);
      const state = await readInstallState(statePath);
      if (!state) {
        io.stderr.write(`memsvc is not installed here (no ${statePath}); nothing to do\n`);
        return;
      }
      const recorded = Object.entries(state.hosts).flatMap(([id, record]) => {
        const host = findHost(id);
        return host ? [{ host, record }] : [];
      });
      const selected = named ? recorded.filter(({ host }) => named.includes(host)) : recorded;
      for (const host of named ?? []) {
        if (!state.hosts[host.id]) io.stderr.write(`${host.id}: not installed by memsvc install, skipped\n`);
      }

      const remove = (dryRun: boolean) =>
        Promise.all(selected.map(async ({ host, record }) => ({
          host,
          result: await uninstallEntry(host, record, SERVER_NAME, {
            tag: SERVER_NAME,
            force: flags.force === true,
            dryRun,
          }),
        })));
      // Decided before anything changes: the token is revoked only once no recorded config holds it.
      const plan = await remove(true);
      for (const { host, result } of plan) {
        if (result.error) io.stderr.write(untouchedLine(host.id, result.error));
      }
      const left = new Set(recorded.map(({ host }) => host.id));
      for (const { host, result } of plan) if (gone(result)) left.delete(host.id);
      const revoke = left.size === 0 && flags.keepKey !== true && flags.keepToken !== true;

      if (flags.dryRun) {
        printRemovals(io, plan, flags.output);
        io.stderr.write(`dry run: nothing changed; the API token would be ${revoke ? "revoked" : "kept"}\n`);
        return;
      }
      const credentials = revoke
        ? await getCredentials({
          email: flags.email,
          yes: flags.yes === true,
          passwordStdin: flags.passwordStdin === true,
          envPrefix: INSTALLER.envPrefix,
          env: process.env,
        })
        : undefined;
      const run = async (session?: string) => {
        const results = await remove(false);
        for (const { host, result } of results) {
          if (result.action !== "invalid") io.stderr.write(removalLine(host.id, result, SERVER_NAME));
          if (gone(result)) delete state.hosts[host.id];
        }
        if (session) {
          const deleted = await deleteToken(state.server, session, state.tokenHash);
          io.stderr.write(
            `API token ${state.tokenLabel ?? state.tokenHash} ${deleted ? "revoked" : "was already gone"}\n`,
          );
        } else {
          io.stderr.write(
            `API token ${state.tokenLabel ?? state.tokenHash} kept${
              left.size ? ` (still used by ${[...left].join(", ")})` : ""
            }\n`,
          );
        }
        if (Object.keys(state.hosts).length === 0) await removeInstallState(statePath);
        else await writeInstallState(statePath, state);
        return results;
      };
      // Sign in first: a wrong password then changes nothing.
      const results = credentials ? await withSession(state.server, credentials, run) : await run();
      printRemovals(io, results, flags.output);
      const kept = results.filter(({ result }) => !gone(result));
      if (kept.length) {
        throw new CliError(
          `${kept.length} host config(s) left as they were: ${
            kept.map(({ result }) => result.path).join(", ")
          }`,
        );
      }
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

const gone = (r: UninstallResult) =>
  r.action === "removed" || r.action === "restored" || r.action === "absent";

function printRemovals(
  io: Io,
  results: { host: AgentHost; result: UninstallResult }[],
  output: "table" | "json" | "yaml",
): void {
  const hosts = results.map(({ host, result }) => ({
    host: host.id,
    name: host.name,
    action: result.action,
    path: result.path,
    ...(result.backup && { backup: result.backup }),
    ...(result.error && { error: result.error.message }),
  }));
  printResult(io, { hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No memsvc entries to remove.",
  });
}
