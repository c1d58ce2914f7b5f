import { ConfigFileError, readConfigText } from "./config_file.ts";
import { parseConfig } from "./config_format.ts";
import { getEntry } from "./entry_place.ts";
import type { AgentHost } from "./hosts.ts";

/** The file's text and our entry in it (undefined when absent); a file that does not parse is refused. */
export async function readEntry(
  host: AgentHost,
  path: string,
  name: string,
): Promise<{ text: string | undefined; entry: unknown }> {
  const text = await readConfigText(path);
  if (text === undefined) return { text, entry: undefined };
  try {
    return { text, entry: getEntry(parseConfig(host, text), host.place, name) };
  } catch (err) {
    throw new ConfigFileError(
      path,
      `does not parse as ${host.format.toUpperCase()} (${(err as Error).message})`,
    );
  }
}
