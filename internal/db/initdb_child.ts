/**
 * Creating a new embedded database (initdb) runs a second WebAssembly PostgreSQL next to the one the
 * server then uses, and WebAssembly memory is never given back: a server's first start on a new data
 * directory stayed at about 1.1 GB. A compiled binary therefore runs initdb in a child process of
 * itself (the hidden command INITDB_COMMAND), whose memory goes back to the system when it exits,
 * and then opens the initialised directory as on any later start.
 */
import type { Command } from "@commander-js/extra-typings";
import { spawn } from "node:child_process";

/** The hidden subcommand a binary registers to initialise a data directory and exit. */
export const INITDB_COMMAND = "__initdb";

/** In the child: creates the database in `dataDir` and closes it. */
export async function initDataDir(dataDir: string): Promise<void> {
  // Loaded here: the binaries import this module for INITDB_COMMAND at every start; PGlite is for the child.
  const { createPGlite } = await import("./create_pglite.ts");
  const pglite = await createPGlite(dataDir);
  await pglite.close();
}

/** Adds the hidden INITDB_COMMAND to a service binary's program (memsvc, vault); not for users. */
export function registerInitdb(program: Command): void {
  program.command(INITDB_COMMAND, { hidden: true }).argument("<data-dir>").action(async (dataDir) => {
    await initDataDir(dataDir);
  });
}

/** In the server: runs `<this binary> __initdb <dataDir>` and waits for it. */
export function initdbInChild(dataDir: string, executable = process.execPath): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, [INITDB_COMMAND, dataDir], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve();
      else {reject(
          new Error(`initdb in a child process failed (${signal ?? code}): ${stderr.trim().slice(-2000)}`),
        );}
    });
  });
}
