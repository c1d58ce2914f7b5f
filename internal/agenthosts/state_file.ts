/**
 * An installer's record of what it did, as a JSON file checked against the installer's own schema:
 * a damaged file is refused (never taken as "not installed"), and the file is written atomically with
 * mode 0600 whatever the umask, since it names the credential (by hash) and every config it touched.
 */
import { createHash } from "node:crypto";
import { chmod, mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigFileError, readConfigText, writeConfigText } from "./config_file.ts";

/** What a zod schema's safeParse returns, so the schema (and zod) can be loaded only when a file is read. */
export type StateParse<T> = { success: true; data: T } | { success: false; error: { message: string } };

/**
 * The state at `path`, or undefined when there is none. `parse` checks the JSON; `what` names the
 * file in the error when it is not one ("a vault-init state file").
 */
export async function readStateFile<T>(
  path: string,
  parse: (json: unknown) => StateParse<T> | Promise<StateParse<T>>,
  what: string,
): Promise<T | undefined> {
  const text = await readConfigText(path);
  if (text === undefined) return undefined;
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(path, `does not parse as JSON (${(err as Error).message})`);
  }
  const parsed = await parse(json);
  if (!parsed.success) throw new ConfigFileError(path, `is not ${what} (${parsed.error.message})`);
  return parsed.data;
}

/**
 * The reader of one tool's state files: `schema` is loaded only when there is a file to check (the
 * installers' commands are registered at every start of their binary, and zod is not needed for most).
 *
 * @example
 * export const readState = stateReader(() => import("./state_schema.ts").then((m) => m.StateSchema), "a vault-init state file");
 */
export function stateReader<T>(
  schema: () => Promise<{ safeParse(json: unknown): StateParse<T> }>,
  what: string,
): (path: string) => Promise<T | undefined> {
  return (path) => readStateFile(path, async (json) => (await schema()).safeParse(json), what);
}

/** Writes the state with mode 0600, creating its directory (mode 0700). */
export async function writeStateFile(path: string, state: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeConfigText(path, `${JSON.stringify(state, null, 2)}\n`);
  await chmod(path, 0o600);
}

export async function removeStateFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** Hex SHA-256: how state files name a credential without holding it. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
