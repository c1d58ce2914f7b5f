import { Option } from "@commander-js/extra-typings";

/**
 * An option whose value falls back to an environment variable; `--help` shows `(env: NAME)`.
 * Precedence: flag, then environment, then `.default(...)`.
 *
 * @example
 * cmd.addOption(envOption("-n, --namespace <name>", "Namespace to use", "EDGECTL_NAMESPACE").default("default"))
 */
export function envOption<const Flags extends string>(flags: Flags, description: string, envVar: string) {
  return new Option(flags, description).env(envVar);
}
