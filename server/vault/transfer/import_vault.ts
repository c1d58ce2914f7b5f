/**
 * Imports a vault (a folder or a zip; import_plan.ts decides what is taken) into one user's notes:
 * files are written in batches (each batch synced to disk once, under the user's write lock, so
 * API writes interleave between batches) and indexed in bulk: every file is recorded before the
 * batch's notes are indexed, and the database resolves the links, so a link to a note of a later
 * batch resolves when that batch arrives (docs/vault.md, "Links"). A file already there with the
 * same bytes is left alone, so a second run changes nothing.
 *
 * @example
 * const source = await zipSource("/tmp/vault.zip");
 * try {
 *   const report = await importVault({ store, sync, userId }, source, { onProgress: (p) => bar(p) });
 * } finally {
 *   await source.close();
 * }
 */
import type { IndexSync } from "../indexing/index_sync.ts";
import type { ImportFile, ImportOutcome, NoteStore } from "../notes/mod.ts";
import { planImport, readPlanned, type Refusal } from "./import_plan.ts";
import type { ImportSource } from "./import_source.ts";

export interface ImportOptions {
  dryRun?: boolean;
  /** Replace files that exist with other content (default: refuse them). */
  overwrite?: boolean;
  /** Most bytes taken in all (the rest is refused); default unlimited. */
  maxBytes?: number;
  onProgress?: (progress: { done: number; total: number }) => void;
}

export interface ImportReport {
  dryRun: boolean;
  /** Files looked at (folders not counted). */
  files: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Of those, files of Obsidian's settings folder, kept aside below `.obsidian/`. */
  aside: number;
  refused: Refusal[];
}

/** Files per batch: large enough to amortise a sync and the index's statements, small enough to interleave. */
const BATCH_FILES = 250;
const BATCH_BYTES = 32 * 1024 * 1024;

export async function importVault(
  target: { store: NoteStore; sync: IndexSync; userId: string },
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const { store, sync, userId } = target;
  const plan = planImport(source.entries);
  const report: ImportReport = {
    dryRun: options.dryRun ?? false,
    files: plan.files.length + plan.refused.length,
    created: 0,
    updated: 0,
    unchanged: 0,
    aside: 0,
    refused: [...plan.refused],
  };
  const total = plan.files.length;
  let done = 0;
  let taken = 0;
  options.onProgress?.({ done, total });

  let batch: ImportFile[] = [];
  let batchBytes = 0;
  const flush = async (last = false) => {
    if (batch.length === 0 && !last) return;
    const outcomes = await store.importFiles(userId, batch, options);
    const indexable: Extract<ImportOutcome, { status: "created" }>[] = [];
    for (const o of outcomes) {
      if (o.status === "refused") report.refused.push({ path: shown(o), reason: o.reason });
      else {
        report[o.status]++;
        if (o.aside) report.aside++;
        else indexable.push(o as Extract<ImportOutcome, { status: "created" }>);
      }
    }
    if (!options.dryRun) await sync.indexImported(userId, indexable, { last });
    done += batch.length;
    options.onProgress?.({ done, total });
    batch = [];
    batchBytes = 0;
  };

  for (const f of plan.files) {
    const read = await readPlanned(f);
    if ("refused" in read) {
      report.refused.push(read.refused);
      done++;
      continue;
    }
    const { bytes } = read;
    if (options.maxBytes !== undefined && taken + bytes.length > options.maxBytes) {
      report.refused.push({
        path: f.entry.path,
        reason: `the import's size limit (${options.maxBytes} bytes) is reached`,
      });
      done++;
      continue;
    }
    taken += bytes.length;
    batch.push({ path: f.path, bytes, mtime: f.entry.mtime, ...(f.aside ? { aside: true } : {}) });
    batchBytes += bytes.length;
    if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) await flush();
  }
  await flush(true);
  report.refused.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return report;
}

function shown(o: { path: string; aside?: boolean }): string {
  return o.aside ? `.obsidian/${o.path}` : o.path;
}
