/**
 * An installer's record of what it did, one JSON file per tool (mode 0600, written atomically): the
 * server, the credential it minted (by hash and name only, never the secret: the configs already hold
 * it, and one more copy is one more place to leak it), and for each host the file and the hash of the
 * entry it wrote. Uninstall removes only entries that still match.
 *
 * The file is generic over its schema: each tool names its own fields (`StateFormat`), and every host
 * record holds at least `HostRecord`'s. The schema (zod) is loaded when a file is read, not when the
 * binary starts: the installers' commands are registered at every start.
 *
 * @example
 * const FORMAT: StateFormat<MyState> = {
 *   kind: "a my-tool state file",
 *   schema: () => import("./my_state_schema.ts").then((m) => m.MyStateSchema),
 * };
 * const state = await readStateFile(path, FORMAT);
 * await writeStateFile(path, { ...state, hosts: { ... } });
 */
import { chmod, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigFileError, readConfigText, writeConfigText } from "./config_file.ts";
import { type HostEnv, macAppSupport, xdgConfigHome } from "./host_paths.ts";
import type { Transport } from "./hosts.ts";

/** What every installer records per host (install_state_schema.ts checks it). */
export interface HostRecord {
  path: string;
  transport: Transport;
  /** SHA-256 of our entry's canonical JSON as written. */
  entryHash: string;
  installedAt: string;
}

/** The part of every tool's state the shared installer steps read. */
export interface InstallerState<R extends HostRecord = HostRecord> {
  server: string;
  hosts: Record<string, R>;
}

/** A schema's check, as zod's `safeParse` gives it. */
export interface StateSchema<S> {
  safeParse(value: unknown): { success: true; data: S } | { success: false; error: { message: string } };
}

/** A tool's state file: what it is called in messages, and its schema (imported when a file is read). */
export interface StateFormat<S> {
  /** With its article, for the refusal of a damaged file: "an install state file". */
  kind: string;
  schema(): Promise<StateSchema<S>>;
}

/** `$XDG_CONFIG_HOME/<tool>/install.json` (default ~/.config); macOS `~/Library/Application Support/<tool>/install.json`. */
export function installStatePath(tool: string, h: HostEnv): string {
  const dir = h.platform === "darwin" ? macAppSupport(h) : xdgConfigHome(h);
  return join(dir, tool, "install.json");
}

/** The recorded state, or undefined when there is none; a damaged file is refused, never taken as "not installed". */
export async function readStateFile<S>(path: string, format: StateFormat<S>): Promise<S | undefined> {
  const text = await readConfigText(path);
  if (text === undefined) return undefined;
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(path, `does not parse as JSON (${(err as Error).message})`);
  }
  const parsed = (await format.schema()).safeParse(json);
  if (!parsed.success) throw new ConfigFileError(path, `is not ${format.kind} (${parsed.error.message})`);
  return parsed.data;
}

/** Atomic write (temporary file, then rename) with mode 0600 whatever the umask, creating its directory. */
export async function writeStateFile(path: string, state: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeConfigText(path, `${JSON.stringify(state, null, 2)}\n`);
  await chmod(path, 0o600);
}

export async function removeStateFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
