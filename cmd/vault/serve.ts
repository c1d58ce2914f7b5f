import type { Command } from "@commander-js/extra-typings";
import { registerServeCommand } from "../../internal/service/serve_command.ts";

/** `vault serve`: run the note vault service until SIGTERM or SIGINT. */
export function registerServe(program: Command): void {
  registerServeCommand(program, {
    service: "vault",
    description:
      "Run the note vault service. It needs BETTER_AUTH_SECRET (signs sessions) and DATABASE_URL " +
      "(postgres://… for a PostgreSQL server, or a directory path for the embedded database), applies " +
      "pending migrations and listens until SIGTERM or SIGINT, then drains in-flight requests. " +
      "Every variable is described in docs/vault.md.",
    flags: [
      {
        flags: "--host <address>",
        description: "interface to listen on (default 127.0.0.1)",
        env: "VAULT_HOST",
      },
      {
        flags: "--port <port>",
        description: "TCP port; 0 picks a free one (default 7779)",
        env: "VAULT_PORT",
      },
      {
        flags: "--data-dir <dir>",
        description: "where the notes files live, one folder per user (default ~/.local/share/vault)",
        env: "VAULT_DATA_DIR",
      },
    ],
    examples: [
      "# Embedded database in ./vault-db, notes in the default folder, port 7779\n" +
      "BETTER_AUTH_SECRET=$(openssl rand -hex 32) DATABASE_URL=./vault-db vault serve",
      "# A PostgreSQL server, every interface, port 8080\n" +
      "BETTER_AUTH_SECRET=... DATABASE_URL=postgres://vault:secret@db:5432/vault vault serve --host 0.0.0.0 --port 8080",
      "# Notes in a folder of your choice\nvault serve --data-dir /srv/vault/notes",
    ],
    loadConfig: () => import("../../server/vault/config.ts").then((m) => m.loadVaultConfig),
    logging: (config) => ({ level: config.VAULT_LOG_LEVEL, format: config.VAULT_LOG_FORMAT }),
    definition: async () => (await import("../../server/vault/server.ts")).vaultService,
    // Serving 10,000 notes makes garbage in bursts (listings, searches, the index's catch-up).
    purgeFreedMemory: true,
  });
}
