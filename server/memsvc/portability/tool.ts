/**
 * What the portability commands share: reading the environment, opening the database with a clear
 * error, and progress lines on stderr.
 */
import { CliError, type Io } from "../../../internal/cli/mod.ts";
import { ConfigError } from "../../../internal/config/mod.ts";
import type { Database } from "../../../internal/db/mod.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import {
  DataDirInUseError,
  loadPortabilityConfig,
  openConfiguredDatabase,
  type PortabilityConfig,
} from "./open_database.ts";

/** The environment with flags laid over it; a bad variable is a usage error (exit 2). */
export function toolConfig(overrides: Record<string, string | undefined> = {}): PortabilityConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  try {
    return loadPortabilityConfig({ ...process.env, ...defined });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** Opens the configured database; a held data dir becomes a CliError ending with `hint`. */
export async function openForTool(
  config: PortabilityConfig,
  hint: string,
): Promise<Database<MemsvcDatabase>> {
  try {
    return await openConfiguredDatabase(config, hint);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw new CliError(err.message);
    throw err;
  }
}

export function progressTo(io: Io): (message: string) => void {
  return (message) => io.stderr.write(`${message}\n`);
}
