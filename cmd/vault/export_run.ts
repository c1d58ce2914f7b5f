/** `vault export`'s work (cmd/vault/export.ts defines the command and loads this when it runs). */
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Writable } from "node:stream";
import { type Io, type OutputFormat, printResult, progressBar } from "../../internal/cli/mod.ts";
import { exportVault } from "../../server/vault/transfer/export_vault.ts";
import { openOffline } from "../../server/vault/transfer/offline.ts";
import { downloadExport } from "../../server/vault/transfer/remote.ts";
import { openZipFile, zipStream } from "../../server/vault/transfer/zip.ts";
import { type TargetFlags, targetOf } from "./transfer_target.ts";

export interface ExportFlags extends TargetFlags {
  output: OutputFormat;
}

/** Writes the vault as a zip to `file` (default vault-<date>.zip, - for stdout) and prints what it wrote. */
export async function runExport(file: string | undefined, flags: ExportFlags, io: Io): Promise<void> {
  const target = targetOf(flags);
  const out = file ?? `vault-${new Date().toISOString().slice(0, 10)}.zip`;
  const toStdout = out === "-";
  const partial = `${out}.partial`;
  const sink = () => (toStdout ? Writable.toWeb(process.stdout) : Writable.toWeb(createWriteStream(partial)));
  const bar = progressBar(io, "exporting", target.kind === "server" ? "bytes" : "files");
  let files = 0;
  let bytes = 0;
  try {
    if (target.kind === "server") {
      await downloadExport(target.config, sink(), (received) => bar.update(received, 0));
      if (!toStdout) {
        const zip = await openZipFile(partial);
        files = zip.entries.filter((e) => !e.directory).length;
        bytes = zip.entries.reduce((n, e) => n + e.size, 0);
        await zip.close();
      }
    } else {
      const vault = await openOffline(target.config, target.email);
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
}
