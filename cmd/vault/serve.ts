import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, envOption } from "../../internal/cli/mod.ts";

/** `vault serve`: run the note vault service until SIGTERM or SIGINT. */
export function registerServe(program: Command): void {
  const serve = program
    .command("serve")
    .description(
      "Run the note vault service. It needs BETTER_AUTH_SECRET (signs sessions) and DATABASE_URL " +
        "(postgres://… for a PostgreSQL server, or a directory path for the embedded database), applies " +
        "pending migrations and listens until SIGTERM or SIGINT, then drains in-flight requests. " +
        "Every variable is described in docs/vault.md.",
    )
    .addOption(envOption("--host <address>", "interface to listen on (default 127.0.0.1)", "VAULT_HOST"))
    .addOption(envOption("--port <port>", "TCP port; 0 picks a free one (default 7779)", "VAULT_PORT"))
    .addOption(
      envOption(
        "--data-dir <dir>",
        "where the notes files live, one folder per user (default ~/.local/share/vault)",
        "VAULT_DATA_DIR",
      ),
    )
    .action(async (flags) => {
      // Loaded here, not at the top: the configuration's schema (zod) is for `serve` alone.
      const [
        { ConfigError, withFlags },
        { createLogger },
        { loadVaultConfig },
        { purgeFreedMemoryPromptly },
      ] = await Promise.all([
        import("../../internal/config/mod.ts"),
        import("../../internal/log/mod.ts"),
        import("../../server/vault/config.ts"),
        import("../../internal/platform/mod.ts"),
      ]);
      // Freed memory goes back to the system at once rather than after mimalloc's delay (allocator.ts).
      purgeFreedMemoryPromptly();
      const overrides = { VAULT_HOST: flags.host, VAULT_PORT: flags.port, VAULT_DATA_DIR: flags.dataDir };
      let config;
      try {
        config = loadVaultConfig(withFlags(process.env, overrides));
      } catch (err) {
        if (err instanceof ConfigError) throw new CliError(err.message, 2);
        throw err;
      }
      const log = createLogger({
        level: config.VAULT_LOG_LEVEL,
        format: config.VAULT_LOG_FORMAT,
        bindings: { service: "vault" },
      });
      // Loaded here, not at the top: `vault version` should not evaluate the server's module graph.
      const { startVault } = await import("../../server/vault/server.ts");
      await startVault(config, log);
    });
  addExamples(serve, [
    "# Embedded database in ./vault-db, notes in the default folder, port 7779\n" +
    "BETTER_AUTH_SECRET=$(openssl rand -hex 32) DATABASE_URL=./vault-db vault serve",
    "# A PostgreSQL server, every interface, port 8080\n" +
    "BETTER_AUTH_SECRET=... DATABASE_URL=postgres://vault:secret@db:5432/vault vault serve --host 0.0.0.0 --port 8080",
    "# Notes in a folder of your choice\nvault serve --data-dir /srv/vault/notes",
  ]);
}
