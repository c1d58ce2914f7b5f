import type { Command } from "@commander-js/extra-typings";
import { registerServeCommand } from "../../internal/service/serve_command.ts";

/** `memsvc serve`: run the HTTP server until SIGTERM or SIGINT. */
export function registerServe(program: Command): void {
  registerServeCommand(program, {
    service: "memsvc",
    description:
      "Run the memory service. It opens its database (embedded by default, or MEMSVC_DATABASE_URL), " +
      "applies pending migrations and listens until SIGTERM or SIGINT, then drains in-flight requests. " +
      "Every MEMSVC_* variable is described in docs/memsvc.md.",
    flags: [
      {
        flags: "--host <address>",
        description: "interface to listen on (default 127.0.0.1)",
        env: "MEMSVC_HOST",
      },
      {
        flags: "--port <port>",
        description: "TCP port; 0 picks a free one (default 7778)",
        env: "MEMSVC_PORT",
      },
      {
        flags: "--data-dir <dir>",
        description: "embedded database directory (default ~/.local/share/memsvc)",
        env: "MEMSVC_DATA_DIR",
      },
    ],
    examples: [
      "# Embedded database, loopback only, port 7778\nmemsvc serve",
      "# Listen on every interface, port 8080\nmemsvc serve --host 0.0.0.0 --port 8080",
      "# Use a PostgreSQL server\nMEMSVC_DATABASE_URL=postgres://memsvc:secret@db:5432/memsvc memsvc serve",
      "# The smallest, fastest embedder instead of the default (builtin-static); a store made by\n" +
      "# another embedder is re-embedded in the background at start\nMEMSVC_EMBEDDER=builtin-hash memsvc serve",
    ],
    loadConfig: () => import("../../server/memsvc/config.ts").then((m) => m.loadMemsvcConfig),
    logging: (config) => ({ level: config.MEMSVC_LOG_LEVEL, format: config.MEMSVC_LOG_FORMAT }),
    definition: async () => (await import("../../server/memsvc/server.ts")).memsvcService,
  });
}
