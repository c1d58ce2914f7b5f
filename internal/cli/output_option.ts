import { Option } from "@commander-js/extra-typings";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
export type OutputFormat = typeof OUTPUT_FORMATS[number];

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
