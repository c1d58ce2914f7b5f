import type { Command } from "@commander-js/extra-typings";
import {
  type AgentHost,
  currentHostEnv,
  findHost,
  installStatePath,
  readInstallState,
  removeEntry,
  removeInstallState,
  type RemoveResult,
  writeInstallState,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, envOption, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { askCredentials, deleteToken, parseHostIds, SERVER_NAME, withSession } from "./install.ts";

/** `memsvc uninstall`: remove the entries `memsvc install` wrote and revoke its API token. */
export function registerUninstall(program: Command, io: Io): void {
  const uninstall = program
    .command("uninstall")
    .summary("Remove memsvc from the agent hosts and revoke its token")
    .description(
      "Remove the memsvc entries that `memsvc install` wrote, and revoke its API token. An entry that was " +
        "edited since (its hash differs from the recorded one) is left alone with a warning, unless --force. " +
        "Revoking needs the account's password again (asked for, or --password-stdin); it happens once no " +
        "config holds the token any more, and --keep-token skips it. The state file goes when nothing is left.",
    )
    .option("--hosts <ids>", "comma-separated host ids; default: every host memsvc install wrote to")
    .addOption(envOption("--email <email>", "account email; asked for on a terminal", "MEMSVC_EMAIL"))
    .option("--password-stdin", "read the password from stdin")
    .option("--keep-token", "do not revoke the API token")
    .option("--force", "remove entries even when they were edited since install")
    .option("--dry-run", "print what would change and change nothing")
    .addOption(outputOption())
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
          result: await removeEntry(host, record.path, SERVER_NAME, {
            tag: SERVER_NAME,
            expectedHash: record.entryHash,
            force: flags.force === true,
            dryRun,
          }),
        })));
      // Decided before anything changes: the token is revoked only once no recorded config holds it.
      const plan = await remove(true);
      const left = new Set(recorded.map(({ host }) => host.id));
      for (const { host, result } of plan) if (result.action !== "drifted") left.delete(host.id);
      const revoke = left.size === 0 && flags.keepToken !== true;

      if (flags.dryRun) {
        printRemovals(io, plan, flags.output);
        io.stderr.write(`dry run: nothing changed; the API token would be ${revoke ? "revoked" : "kept"}\n`);
        return;
      }
      const credentials = revoke
        ? await askCredentials({ email: flags.email, passwordStdin: flags.passwordStdin === true })
        : undefined;
      const run = async (session?: string) => {
        const results = await remove(false);
        for (const { host, result } of results) {
          io.stderr.write(`${host.id}: ${describe(result)}\n`);
          if (result.action !== "drifted") delete state.hosts[host.id];
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
    });
  addExamples(uninstall, [
    "# Remove every entry memsvc install wrote and revoke its token (asks for the password)\nmemsvc uninstall",
    "# Only Cursor; the token stays, since other hosts still use it\nmemsvc uninstall --hosts cursor",
    "# Unattended\npass show memsvc | memsvc uninstall --email ada@example.com --password-stdin",
  ]);
}

function describe(result: RemoveResult): string {
  switch (result.action) {
    case "removed":
      return `removed from ${result.path}${result.backup ? ` (backup ${result.backup})` : ""}`;
    case "absent":
      return `no memsvc entry in ${result.path}`;
    case "drifted":
      return `${result.path}: the memsvc entry was edited since install, drifted, left alone (--force removes it)`;
  }
}

function printRemovals(
  io: Io,
  results: { host: AgentHost; result: RemoveResult }[],
  output: "table" | "json" | "yaml",
): void {
  const hosts = results.map(({ host, result }) => ({ host: host.id, name: host.name, ...result }));
  printResult(io, { hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No memsvc entries to remove.",
  });
}
