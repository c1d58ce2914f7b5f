import { Option } from "@commander-js/extra-typings";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
/** `wide` is the table with more columns, for list commands that offer it (kubectl's -o wide). */
export type OutputFormat = typeof OUTPUT_FORMATS[number] | "wide";

/**
 * `-o, --output <format>`: table (default), json or yaml. Commander rejects any other value as a
 * usage error. With `env`, the variable (e.g. EDGECTL_OUTPUT) supplies the default.
 */
export function outputOption(options: { env?: string } = {}) {
  const option = new Option("-o, --output <format>", "Output format")
    .choices(OUTPUT_FORMATS)
    .default("table" as const);
  return options.env ? option.env(options.env) : option;
}

/** `-o` for list commands that also print a wide table (more columns): table, wide, json or yaml. */
export function wideOutputOption(options: { env?: string } = {}) {
  const option = new Option(
    "-o, --output <format>",
    "Output format: table, wide (more columns), json or yaml",
  )
    .choices([...OUTPUT_FORMATS, "wide"] as const)
    .default("table" as OutputFormat);
  return options.env ? option.env(options.env) : option;
}
