/**
 * A config that does not parse, with where (1-based line and column, as editors count) and, when
 * it is clear, what to do about it. The format parsers (JSON, YAML, TOML) each throw their own errors;
 * config_format turns them into this one so installers can print `file:line:column: what`.
 */
export class ConfigSyntaxError extends Error {
  override name = "ConfigSyntaxError";

  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
    /** The kind of problem when it needs a specific fix ("comment": JSON has none). */
    readonly problem?: "comment",
  ) {
    super(message);
  }
}

/** The 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split("\n");
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}
