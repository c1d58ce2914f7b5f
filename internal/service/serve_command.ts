/**
 * The `serve` command of every service binary (`memsvc serve`, `vault serve`): flags and environment
 * → configuration → logger → start. A service names its flags (each overrides the environment
 * variable it falls back to), its description and examples, and how to load its configuration and
 * its server. Both are imported when the command runs, never when the binary starts: the schema (zod)
 * is for `serve` alone, and the server's module graph is most of the binary, which `--help`,
 * `--version` and `memsvc mcp` (at every agent-host launch) should not pay for evaluating. The
 * service starts as its definition says (start.ts).
 *
 * @example
 * registerServeCommand(program, {
 *   service: "vault",
 *   description: "Run the note vault service. ...",
 *   flags: [{ flags: "--port <port>", description: "TCP port (default 7779)", env: "VAULT_PORT" }],
 *   examples: ["# Port 8080\nvault serve --port 8080"],
 *   loadConfig: () => import("../../server/vault/config.ts").then((m) => m.loadVaultConfig),
 *   logging: (config) => ({ level: config.VAULT_LOG_LEVEL, format: config.VAULT_LOG_FORMAT }),
 *   definition: async () => (await import("../../server/vault/server.ts")).vaultService,
 * });
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption } from "../cli/mod.ts";
import type { LoggerOptions } from "../log/mod.ts";
import type { ServiceDefinition } from "./start.ts";

/** A flag of `serve` that overrides (and falls back to) an environment variable. */
export interface ServeFlag {
  /** commander's syntax, e.g. "--port <port>". */
  flags: string;
  description: string;
  env: string;
}

export interface ServeCommandSpec<C> {
  /** The `service` field of every log line. */
  service: string;
  description: string;
  flags: readonly ServeFlag[];
  examples: readonly string[];
  /** Imports the configuration's loader, which throws ConfigError naming a bad variable. */
  loadConfig(): Promise<(env: Record<string, string | undefined>) => C>;
  /** The log's level and format, as the configuration says. */
  logging(config: C): Pick<LoggerOptions, "level" | "format">;
  /** Imports the service's definition; start.ts starts it, and it serves until a stop signal. */
  definition(): Promise<ServiceDefinition<C, unknown>>;
  /**
   * Freed memory goes back to the system at once rather than after mimalloc's delay: a compiled
   * binary re-executes itself first with the option set (internal/platform/allocator.ts).
   */
  purgeFreedMemory?: boolean;
}

/** Adds `serve` to a service binary's program. */
export function registerServeCommand<C>(program: Command, spec: ServeCommandSpec<C>): void {
  const serve = program.command("serve").description(spec.description);
  const overrides = spec.flags.map((flag) => {
    const option = envOption(flag.flags, flag.description, flag.env);
    serve.addOption(option);
    return { attribute: option.attributeName(), env: flag.env };
  });
  serve.action(async () => {
    if (spec.purgeFreedMemory) (await import("../platform/allocator.ts")).purgeFreedMemoryPromptly();
    const flags = serve.opts() as Record<string, string | undefined>;
    const [{ ConfigError, withFlags }, { createLogger }, loadConfig] = await Promise.all([
      import("../config/mod.ts"),
      import("../log/mod.ts"),
      spec.loadConfig(),
    ]);
    const given = Object.fromEntries(overrides.map((o) => [o.env, flags[o.attribute]]));
    let config: C;
    try {
      config = loadConfig(withFlags(process.env, given));
    } catch (err) {
      if (err instanceof ConfigError) throw new CliError(err.message, 2);
      throw err;
    }
    const log = createLogger({ ...spec.logging(config), bindings: { service: spec.service } });
    const [{ startService }, service] = await Promise.all([import("./start.ts"), spec.definition()]);
    await startService(config, log, service);
  });
  addExamples(serve, spec.examples);
}
