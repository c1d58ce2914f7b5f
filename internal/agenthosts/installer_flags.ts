/**
 * The flags of every installer built on this library (`memsvc install|uninstall`, `vault-init
 * install|uninstall`), defined once so the two tools take the same words for the same things: a user
 * who scripted one can script the other. Only the server URL's environment variable, the product's
 * own extras (`--shim`) and the descriptions that name the product differ.
 *
 * @example
 * const install = withInstallFlags(program.command("install"), { tool: "memsvc", envPrefix: "MEMSVC" })
 *   .action(async (flags) => { ... flags.server, flags.hosts, flags.yes, flags.securePermissions ... });
 */
import type { Command } from "@commander-js/extra-typings";
import { CliError, envOption, type OutputFormat, outputOption } from "../cli/mod.ts";
import type { AgentHost } from "./hosts.ts";

export interface InstallerNames {
  /** The binary, as users type it ("memsvc", "vault-init"). */
  tool: string;
  /** Prefix of the tool's environment variables ("MEMSVC", "VAULT"): `<PREFIX>_EMAIL`, `<PREFIX>_PASSWORD`. */
  envPrefix: string;
}

/** The flags install and uninstall share: which hosts, a dry run, no questions, the account. */
function withCommonFlags(
  command: Command,
  names: InstallerNames,
  hostsDefault: string,
) {
  return command
    .option("--hosts <ids>", `comma-separated host ids; default: ${hostsDefault}`)
    .option("--dry-run", "print what would change and change nothing (no sign-in)")
    .option(
      "-y, --yes",
      `ask nothing: no confirmation; the email from --email or ${names.envPrefix}_EMAIL, the password from ` +
        `--password-stdin or ${names.envPrefix}_PASSWORD`,
    )
    .addOption(
      envOption("--email <email>", "account email; asked for on a terminal", `${names.envPrefix}_EMAIL`),
    )
    .option("--password-stdin", "read the password from stdin (never from a flag: it would show in `ps`)");
}

/** `install`'s flags: the common ones, the server (with its environment variable) and --secure-permissions. */
export function withInstallFlags(
  command: Command,
  names: InstallerNames & { serverEnv: string; serverHelp: string },
) {
  return withCommonFlags(command, names, "every detected host")
    .addOption(envOption("--server <url>", names.serverHelp, names.serverEnv))
    .option(
      "--secure-permissions",
      "take group and world access off config files (0644 becomes 0600) before they hold the secret",
    )
    .addOption(outputOption());
}

/** `uninstall`'s flags: the common ones, --force and --keep-key. */
export function withUninstallFlags(
  command: Command,
  names: InstallerNames,
) {
  return withCommonFlags(command, names, `every host ${names.tool} install wrote to`)
    .option(
      "--force",
      "also remove entries edited by hand since install (nothing else in their files changes)",
    )
    .option("--keep-key", "do not revoke the API key")
    .addOption(outputOption());
}

/** The account choices both commands pass on to getCredentials: --email, --yes, --password-stdin. */
export interface AccountChoices {
  email?: string;
  yes: boolean;
  passwordStdin: boolean;
}

/** What `install`'s shared flags ask for (the server and hosts are each tool's to parse). */
export interface InstallChoices extends AccountChoices {
  dryRun: boolean;
  securePermissions: boolean;
  output: OutputFormat;
}

/** What `uninstall`'s shared flags ask for (the hosts are each tool's to parse). */
export interface UninstallChoices extends AccountChoices {
  dryRun: boolean;
  force: boolean;
  keepKey: boolean;
  output: OutputFormat;
}

interface ParsedFlags {
  email?: string;
  yes?: boolean;
  passwordStdin?: boolean;
  dryRun?: boolean;
  output: OutputFormat;
}

function accountChoices(flags: ParsedFlags): AccountChoices & { dryRun: boolean; output: OutputFormat } {
  return {
    email: flags.email,
    yes: flags.yes === true,
    passwordStdin: flags.passwordStdin === true,
    dryRun: flags.dryRun === true,
    output: flags.output,
  };
}

export function installChoices(flags: ParsedFlags & { securePermissions?: boolean }): InstallChoices {
  return { ...accountChoices(flags), securePermissions: flags.securePermissions === true };
}

export function uninstallChoices(
  flags: ParsedFlags & { force?: boolean; keepKey?: boolean },
): UninstallChoices {
  return { ...accountChoices(flags), force: flags.force === true, keepKey: flags.keepKey === true };
}

/** `--server`: an http(s) URL without credentials or a trailing slash; the path is kept (a server behind a prefix). */
export function parseServerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`invalid server URL '${value}': not a URL`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`invalid server URL '${value}': use http:// or https://`, 2);
  }
  if (url.username || url.password) throw new CliError("the server URL must not carry credentials", 2);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** `--hosts a,b`: ids of `known` hosts only, refused (exit 2) before any I/O. */
export function parseHostIds(value: string, known: readonly AgentHost[]): AgentHost[] {
  const ids = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new CliError("--hosts: give at least one host id", 2);
  return ids.map((id) => {
    const host = known.find((h) => h.id === id);
    if (!host) throw new CliError(`unknown host '${id}' (known: ${known.map((h) => h.id).join(", ")})`, 2);
    return host;
  });
}
