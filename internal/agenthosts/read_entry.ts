import { ConfigFileError, readConfigText } from "./config_file.ts";
import { parseConfig } from "./config_format.ts";
import { getEntry } from "./entry_place.ts";
import type { AgentHost } from "./hosts.ts";
import { ConfigSyntaxError } from "./syntax_error.ts";

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
    throw syntaxError(host, path, err as Error);
  }
}

/** The file's parse failure, with its place and, for a comment in a strict-JSON file, what to do. */
function syntaxError(host: AgentHost, path: string, err: Error): ConfigFileError {
  const detail = `does not parse as ${host.format.toUpperCase()}: ${err.message}`;
  if (!(err instanceof ConfigSyntaxError)) return new ConfigFileError(path, detail);
  const fix = err.problem === "comment"
    ? `${host.name} reads this file as strict JSON: remove the comment`
    : undefined;
  return new ConfigFileError(path, detail, { line: err.line, column: err.column, fix });
}
