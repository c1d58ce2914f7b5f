/** `vault import`'s work (cmd/vault/import.ts defines the command and loads this when it runs). */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { CliError, formatTable, type Io, type OutputFormat, printResult } from "../../internal/cli/mod.ts";
import {
  planImport,
  readPlanned,
  type Refusal,
  storedPath,
} from "../../server/vault/transfer/import_plan.ts";
import { folderSource, type ImportSource, zipSource } from "../../server/vault/transfer/import_source.ts";
import { type ImportReport, importVault } from "../../server/vault/transfer/import_vault.ts";
import { NotAZipError, zipStream } from "../../server/vault/transfer/zip.ts";
import type { VaultClientConfig } from "../../server/vault/config.ts";
import { progressBar } from "./progress.ts";
import { callServer, openOffline, type TargetFlags, targetOf } from "./transfer_target.ts";

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
      const vault = await openOffline(target);
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

type Progress = (done: number, total: number) => void;

/** A zip as it is, streamed to POST /api/import. */
async function uploadZip(
  config: VaultClientConfig,
  file: string,
  size: number,
  options: { dryRun: boolean; overwrite: boolean },
  progress: Progress,
): Promise<ImportReport> {
  let sent = 0;
  const counted = (Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        sent += chunk.length;
        progress(sent, size);
        out.enqueue(chunk);
      },
    }),
  );
  return await post(config, counted, options);
}

/**
 * A folder, planned here with the server's own rules (what it would refuse is not sent), zipped as
 * it is read and streamed to POST /api/import.
 */
async function uploadFolder(
  config: VaultClientConfig,
  dir: string,
  options: { dryRun: boolean; overwrite: boolean },
  progress: Progress,
): Promise<ImportReport> {
  const plan = planImport((await folderSource(dir)).entries);
  const refused: Refusal[] = [...plan.refused];
  const total = plan.files.reduce((n, f) => n + f.entry.size, 0);
  // Deflate's fastest level: Markdown still shrinks about threefold on the wire, for a fraction of the CPU.
  const zip = zipStream({ level: 1 });
  let sent = 0;
  const producing = (async () => {
    for (const f of plan.files) {
      const read = await readPlanned(f);
      if ("refused" in read) {
        refused.push(read.refused);
        continue;
      }
      await zip.add(storedPath(f), read.bytes, f.entry.mtime);
      sent += read.bytes.length;
      progress(sent, total);
    }
    await zip.close();
  })().catch(async (err) => {
    await zip.abort(err);
    throw err;
  });
  const [report] = await Promise.all([post(config, zip.readable, options), producing]);
  report.files += refused.length;
  report.refused = [...report.refused, ...refused].sort((
    a,
    b,
  ) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return report;
}

async function post(
  config: VaultClientConfig,
  body: ReadableStream<Uint8Array>,
  options: { dryRun: boolean; overwrite: boolean },
): Promise<ImportReport> {
  const query = new URLSearchParams({ dryRun: String(options.dryRun), overwrite: String(options.overwrite) });
  const res = await callServer(config, `api/import?${query}`, {
    method: "POST",
    body,
    duplex: "half",
    headers: { "content-type": "application/zip" },
  });
  return await res.json() as ImportReport;
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
