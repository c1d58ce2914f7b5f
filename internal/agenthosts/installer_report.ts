/**
 * The lines installers print on stderr about one host's file, worded the same in every tool: why a file
 * was left untouched and what to do, and a warning when a file others can read now holds the secret.
 */
import type { ConfigFileError } from "./config_file.ts";
import { exposedMode, type InstallResult } from "./install_entry.ts";
import type { UninstallResult } from "./uninstall_entry.ts";

/** `<host>: left untouched: <file>:<line>:<column>: <what>; <fix>, then run again (or leave <host> out with --hosts)`. */
export function untouchedLine(hostId: string, err: ConfigFileError): string {
  return `${hostId}: left untouched: ${err.message}; ${err.fix}, then run again (or leave ${hostId} out with --hosts)\n`;
}

/**
 * A warning when the file holding our entry (and so the secret) is readable by group or others, e.g. an
 * existing 0644 ~/.claude.json; undefined when it is owner-only. `secret` names it ("API key").
 */
export function exposedWarning(hostId: string, result: InstallResult, secret: string): string | undefined {
  if (result.secured) {
    return `${hostId}: ${result.path} holds the ${secret}: its mode is now ${
      octal(result.mode)
    }, owner only\n`;
  }
  if (!exposedMode(result.mode)) return undefined;
  return `warning: ${hostId}: ${result.path} is readable by others (mode ${
    octal(result.mode)
  }) and holds the ` +
    `${secret}: run again with --secure-permissions to make it ${octal(result.mode & ~0o077)} ` +
    `(or chmod go-rwx it)\n`;
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, "0")}`;
}

/** What uninstall did to one host's file, for stderr (`invalid` files are reported by untouchedLine). */
export function removalLine(hostId: string, r: UninstallResult, name: string): string {
  switch (r.action) {
    case "removed":
      return `${hostId}: removed from ${r.path}${r.backup ? ` (backup ${r.backup})` : ""}\n`;
    case "restored":
      return `${hostId}: the ${name} entry was edited since install and nothing else in ${r.path} was: ` +
        `restored ${r.backup}\n`;
    case "drifted":
      return `${hostId}: the ${name} entry in ${r.path} was edited since install, and so was the rest of ` +
        "the file: left as it is (--force removes the entry and nothing else)\n";
    case "absent":
      return `${hostId}: no ${name} entry in ${r.path}\n`;
    case "invalid":
      return untouchedLine(hostId, r.error!);
  }
}
