/** `vault import`'s work (cmd/vault/import.ts defines the command and loads this when it runs). */
import { stat } from "node:fs/promises";
import {
  CliError,
  formatTable,
  type Io,
  type OutputFormat,
  printResult,
  progressBar,
} from "../../internal/cli/mod.ts";
import { folderSource, type ImportSource, zipSource } from "../../server/vault/transfer/import_source.ts";
import { type ImportReport, importVault } from "../../server/vault/transfer/import_vault.ts";
import { openOffline } from "../../server/vault/transfer/offline.ts";
import { uploadFolder, uploadZip } from "../../server/vault/transfer/remote.ts";
import { NotAZipError } from "../../server/vault/transfer/zip.ts";
import { type TargetFlags, targetOf } from "./transfer_target.ts";

export interface ImportFlags extends TargetFlags {
  dryRun?: boolean;
  overwrite?: boolean;
  output: OutputFormat;
}

/** Imports `source` (a folder or a zip) through a server or offline, and prints the report. */
export async function runImport(source: string, flags: ImportFlags, io: Io): Promise<void> {
  const target = targetOf(flags);
  const st = await stat(source).catch(() => undefined);
  if (!st?.isDirectory() && !st?.isFile()) throw new CliError(`${source}: no such folder or zip file`);
  const options = { dryRun: flags.dryRun ?? false, overwrite: flags.overwrite ?? false };
  const bar = progressBar(
    io,
    options.dryRun ? "checking" : "importing",
    target.kind === "server" ? "bytes" : "files",
  );
  let report: ImportReport;
  let into: string;
  try {
    if (target.kind === "server") {
      into = target.config.VAULT_URL;
      report = st.isDirectory()
        ? await uploadFolder(target.config, source, options, bar.update)
        : await uploadZip(target.config, source, st.size, options, bar.update);
    } else {
      const vault = await openOffline(target.config, target.email);
      into = `${vault.email}'s vault`;
      let src: ImportSource | undefined;
      try {
        src = st.isDirectory() ? await folderSource(source) : await zipSource(source);
        report = await importVault(vault, src, {
          ...options,
          maxBytes: target.config.VAULT_IMPORT_MAX_BYTES,
          onProgress: (p) => bar.update(p.done, p.total),
        });
      } finally {
        await src?.close();
        await vault.close();
      }
    }
  } catch (err) {
    if (err instanceof NotAZipError) throw new CliError(`${source} is not a zip archive`);
    throw err;
  } finally {
    bar.done();
  }
  printResult(io, report, flags.output, (r) => describe(r, into));
}

function describe(r: ImportReport, into: string): string {
  const verb = r.dryRun ? "would import into" : "imported into";
  const lines = [
    `${verb} ${into}: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged` +
    (r.aside ? ` (${r.aside} of them Obsidian settings, kept aside in .obsidian/)` : ""),
  ];
  if (r.refused.length) {
    lines.push(`refused ${r.refused.length} (not imported):`);
    lines.push(formatTable(["path", "reason"], r.refused.map((x) => [x.path, x.reason])).trimEnd());
  }
  return lines.join("\n");
}
