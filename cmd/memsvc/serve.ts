import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption } from "../../internal/cli/mod.ts";

/** `memsvc serve`: run the HTTP server until SIGTERM or SIGINT. */
export function registerServe(program: Command): void {
  const serve = program
    .command("serve")
    .description(
      "Run the memory service. It opens its database (embedded by default, or MEMSVC_DATABASE_URL), " +
        "applies pending migrations and listens until SIGTERM or SIGINT, then drains in-flight requests. " +
        "Every MEMSVC_* variable is described in docs/memsvc.md.",
    )
    .addOption(envOption("--host <address>", "interface to listen on (default 127.0.0.1)", "MEMSVC_HOST"))
    .addOption(envOption("--port <port>", "TCP port; 0 picks a free one (default 7778)", "MEMSVC_PORT"))
    .addOption(
      envOption(
        "--data-dir <dir>",
        "embedded database directory (default ~/.local/share/memsvc)",
        "MEMSVC_DATA_DIR",
      ),
    )
    .action(async (flags) => {
      // Loaded here, not at the top: the configuration's schema (zod) is for `serve` alone.
      const [{ ConfigError, withFlags }, { createLogger }, { loadMemsvcConfig }] = await Promise.all([
        import("../../internal/config/mod.ts"),
        import("../../internal/log/mod.ts"),
        import("../../server/memsvc/config.ts"),
      ]);
      const overrides = { MEMSVC_HOST: flags.host, MEMSVC_PORT: flags.port, MEMSVC_DATA_DIR: flags.dataDir };
      let config;
      try {
        config = loadMemsvcConfig(withFlags(process.env, overrides));
      } catch (err) {
        if (err instanceof ConfigError) throw new CliError(err.message, 2);
        throw err;
      }
      const log = createLogger({
        level: config.MEMSVC_LOG_LEVEL,
        format: config.MEMSVC_LOG_FORMAT,
        bindings: { service: "memsvc" },
      });
      // Loaded here, not at the top: the server's module graph is most of the binary, and other
      // commands (`memsvc mcp` runs at every agent-host launch) should not pay for evaluating it.
      const { startMemsvc } = await import("../../server/memsvc/server.ts");
      await startMemsvc(config, log);
    });
  addExamples(serve, [
    "# Embedded database, loopback only, port 7778\nmemsvc serve",
    "# Listen on every interface, port 8080\nmemsvc serve --host 0.0.0.0 --port 8080",
    "# Use a PostgreSQL server\nMEMSVC_DATABASE_URL=postgres://memsvc:secret@db:5432/memsvc memsvc serve",
    "# The smallest, fastest embedder instead of the default (builtin-static); a store made by\n" +
    "# another embedder is re-embedded in the background at start\nMEMSVC_EMBEDDER=builtin-hash memsvc serve",
  ]);
}
