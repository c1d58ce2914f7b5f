/**
 * Test helper: fresh PGlite data directories. initdb takes about 3 s, so the first call initialises a
 * template and every call returns a copy of it (about 0.3 s).
 */
import { PGlite } from "@electric-sql/pglite";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dirs: string[] = [];
let template: Promise<string> | undefined;

/** A new, initialised, empty PGlite data directory; remove them all with removeDataDirs. */
export async function freshDataDir(): Promise<string> {
  template ??= createTemplate();
  const dir = await tempDir();
  await cp(await template, dir, { recursive: true });
  return dir;
}

/** A new empty directory, removed by removeDataDirs. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pglite-test-"));
  dirs.push(dir);
  return dir;
}

export async function removeDataDirs(): Promise<void> {
  template = undefined;
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

async function createTemplate(): Promise<string> {
  const dir = await tempDir();
  const pglite = await PGlite.create({ dataDir: dir });
  await pglite.close();
  return dir;
}
