import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Writable } from "node:stream";
import type { Command } from "@commander-js/extra-typings";
import { addExamples, envOption, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { exportVault } from "../../server/vault/transfer/export_vault.ts";
import { openZipFile, zipStream } from "../../server/vault/transfer/zip.ts";
import { progressBar } from "./progress.ts";
import { callServer, openOffline, targetOf } from "./transfer_target.ts";

/** `vault export`: a user's vault as a zip that Obsidian opens as it is, through a server or offline. */
export function registerExport(program: Command, io: Io): void {
  const command = program
    .command("export")
    .summary("Export a vault as a zip Obsidian opens as it is")
    .description(
      "Write a user's vault as a zip: every note, canvas and attachment at its path and the .obsidian/ " +
        "settings an import kept aside, with their modification times (no trash). Unzipped, it is a folder " +
        "Obsidian opens as a vault; `vault import` takes it back byte for byte. Through a running server: " +
        "--server (or VAULT_URL) and an API key in VAULT_TOKEN (a read key is enough). Offline, with the server " +
        "stopped: --user and the DATABASE_URL and VAULT_DATA_DIR `vault serve` uses.",
    )
    .argument("[file]", "where to write the zip, or - for stdout (default: vault-<date>.zip)")
    .option(
      "--server <url>",
      "the vault to export (default: VAULT_URL); the API key is read from VAULT_TOKEN",
    )
    .option("--user <email>", "offline: whose vault to export")
    .addOption(
      envOption("--data-dir <dir>", "offline: the notes folder (as for vault serve)", "VAULT_DATA_DIR"),
    )
    .addOption(outputOption())
    .action(async (file, flags) => {
      const target = targetOf(flags);
      const out = file ?? `vault-${new Date().toISOString().slice(0, 10)}.zip`;
      const toStdout = out === "-";
      const partial = `${out}.partial`;
      const sink =
        () => (toStdout ? Writable.toWeb(process.stdout) : Writable.toWeb(createWriteStream(partial)));
      const bar = progressBar(io, "exporting", target.kind === "server" ? "bytes" : "files");
      let files = 0;
      let bytes = 0;
      try {
        if (target.kind === "server") {
          const res = await callServer(target.config, "api/export");
          let received = 0;
          await res.body!.pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(chunk, c) {
                received += chunk.length;
                bar.update(received, 0);
                c.enqueue(chunk);
              },
            }),
          ).pipeTo(sink());
          if (!toStdout) {
            const zip = await openZipFile(partial);
            files = zip.entries.filter((e) => !e.directory).length;
            bytes = zip.entries.reduce((n, e) => n + e.size, 0);
            await zip.close();
          }
        } else {
          const vault = await openOffline(target);
          try {
            const zip = zipStream();
            const writing = zip.readable.pipeTo(sink());
            const done = await exportVault(
              vault.store,
              vault.userId,
              zip,
              (p) => bar.update(p.done, p.total),
            );
            await writing;
            ({ files, bytes } = done);
          } finally {
            await vault.close();
          }
        }
        if (!toStdout) await rename(partial, out);
      } catch (err) {
        if (!toStdout) await rm(partial, { force: true });
        throw err;
      } finally {
        bar.done();
      }
      const result = { file: out, files, bytes };
      if (toStdout) return;
      printResult(
        io,
        result,
        flags.output,
        (r) => `exported ${r.files} files (${r.bytes} bytes) to ${r.file}`,
      );
    });
  addExamples(command, [
    "# From a running server\nVAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... vault export my-vault.zip",
    "# Offline, the server stopped\nDATABASE_URL=./vault-db vault export --user alice@example.com --data-dir /srv/vault/notes",
  ]);
}
