/**
 * Wiring AI agent hosts (Claude Code, Cursor, VS Code, Codex, ...) to an MCP server: where each host
 * keeps its config, its native entry shape, detection, and comment-preserving, atomic, backed-up
 * edits that add, check and remove exactly one entry; and the installer core both installers build on
 * (memsvc/ and vault_init/ hold what is each one's own): the shared flags, the steps of an install
 * (install_hosts.ts), the whole of uninstall (uninstall_hosts.ts), the server calls (server_api.ts) and
 * the state file, read with each tool's schema (state_file.ts). Nothing here is specific to one product:
 * the caller passes the server's name, URL, token and stdio bridge command.
 *
 * @example
 * const h = currentHostEnv();
 * const server: McpServer = {
 *   name: "memsvc",
 *   url: "http://127.0.0.1:7778/mcp",
 *   bearer: { token },
 *   stdio: { command: "/usr/local/bin/memsvc", args: ["mcp"], env: { MEMSVC_TOKEN: token } },
 * };
 * for (const host of HOSTS) {
 *   const location = await locateConfig(host, h);
 *   if (!location) continue;
 *   const result = await installEntry(host, location, server, { tag: "memsvc" });
 *   console.log(host.id, result.action, result.path); // record result.entryHash for uninstall
 * }
 */
export {
  backupConfig,
  ConfigFileError,
  listBackups,
  pruneBackups,
  readConfigText,
  writeConfigText,
} from "./config_file.ts";
export { canonicalJson, entryHash } from "./entry_hash.ts";
export { currentHostEnv, type HostEnv, isSupportedPlatform, xdgConfigHome } from "./host_paths.ts";
export {
  type AgentHost,
  buildEntry,
  type ConfigFormat,
  type ConfigLocation,
  type Entry,
  type EntryPlace,
  findHost,
  HOSTS,
  type McpServer,
  type Transport,
  transportsOf,
} from "./hosts.ts";
export {
  type HostReport,
  type HostState,
  inspectHost,
  inspectHosts,
  type RecordedEntry,
} from "./inspect_host.ts";
export {
  exposedMode,
  type InstallAction,
  installEntry,
  type InstallResult,
  type WriteOptions,
} from "./install_entry.ts";
export { type CredentialOptions, type Credentials, getCredentials } from "./credentials.ts";
export {
  type AccountChoices,
  type InstallChoices,
  installChoices,
  type InstallerNames,
  parseHostIds,
  parseServerUrl,
  type UninstallChoices,
  uninstallChoices,
  withInstallFlags,
  withUninstallFlags,
} from "./installer_flags.ts";
export {
  type HostOutcome,
  outcomeRows,
  recordHosts,
  recoverSecret,
  selectTargets,
  type Target,
  warnExposed,
  writeEntries,
  type WriteEntriesOptions,
} from "./install_hosts.ts";
export { type CallOptions, callServer, checkHealth, type Reply } from "./server_api.ts";
export {
  type InstallerState,
  type Removal,
  type SecretOutcome,
  uninstallHosts,
  type UninstallOptions,
  type UninstallSpec,
} from "./uninstall_hosts.ts";
export { exposedWarning, removalLine, untouchedLine } from "./installer_report.ts";
export { type UninstallAction, uninstallEntry, type UninstallResult } from "./uninstall_entry.ts";
export {
  type HostRecord,
  type InstallState,
  installStatePath,
  readInstallState,
  removeInstallState,
  writeInstallState,
} from "./install_state.ts";
export { locateConfig, type LocatedConfig } from "./locate_config.ts";
export {
  readStateFile,
  removeStateFile,
  sha256,
  type StateParse,
  stateReader,
  writeStateFile,
} from "./state_file.ts";
export { readEntry } from "./read_entry.ts";
export { type RemoveAction, removeEntry, type RemoveResult } from "./remove_entry.ts";
export { renderEntry } from "./render_entry.ts";
