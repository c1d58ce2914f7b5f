/**
 * `vault import` and `vault export` through a running server: the API key on every request and its
 * refusals as one clear line (callServer), a zip streamed to POST /api/import as it is, or a folder
 * planned here with the server's own rules (what it would refuse is not sent) and zipped as it is read.
 * The CLI's side of routes/transfer; the offline side is offline.ts.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { VaultClientConfig } from "../config.ts";
import { planImport, readPlanned, type Refusal, storedPath } from "./import_plan.ts";
import { folderSource } from "./import_source.ts";
import type { ImportReport } from "./import_vault.ts";
import { zipStream } from "./zip.ts";

/** A request to the server with the API key; refusals become one clear line. */
export async function callServer(
  config: VaultClientConfig,
  path: string,
  init: RequestInit & { duplex?: "half" } = {},
): Promise<Response> {
  const url = new URL(path, config.VAULT_URL.replace(/\/*$/, "/"));
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: { ...init.headers as Record<string, string>, authorization: `Bearer ${config.VAULT_TOKEN}` },
    });
  } catch (err) {
    throw new CliError(`cannot reach the vault at ${config.VAULT_URL}: ${(err as Error).message}`);
  }
  if (res.ok) return res;
  const body = await res.json().catch(() => ({})) as { error?: string };
  if (res.status === 401) throw new CliError("the vault refused the API key (401): check VAULT_TOKEN");
  if (res.status === 403) {
    throw new CliError(
      `the vault refused (403): ${body.error ?? "forbidden"} (an import needs a read-write key)`,
    );
  }
  throw new CliError(`the vault answered ${res.status}: ${body.error ?? res.statusText}`);
}

type Progress = (done: number, total: number) => void;

/** A zip as it is, streamed to POST /api/import. */
export async function uploadZip(
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
export async function uploadFolder(
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

/** GET /api/export, the zip streamed to `sink`; `progress` hears the bytes received (the total is not known). */
export async function downloadExport(
  config: VaultClientConfig,
  sink: WritableStream<Uint8Array>,
  progress: (received: number) => void,
): Promise<void> {
  const res = await callServer(config, "api/export");
  let received = 0;
  await res.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        received += chunk.length;
        progress(received);
        c.enqueue(chunk);
      },
    }),
  ).pipeTo(sink);
}
