import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { lockDataDir } from "./data_dir_lock.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "db-lock-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("lockDataDir writes this pid to <dir>/.lock and release removes it, idempotently", async () => {
  const lock = await lockDataDir(dir);
  assert.equal(await readFile(join(dir, ".lock"), "utf8"), `${process.pid}\n`);
  await Promise.all([lock.release(), lock.release()]);
  await lock.release();
  assert.equal(existsSync(join(dir, ".lock")), false);
});

test("lockDataDir refuses a directory this process already holds", async () => {
  const lock = await lockDataDir(dir);
  await assert.rejects(lockDataDir(dir), {
    message: new RegExp(`^data directory ${dir} is in use by process ${process.pid} `),
  });
  await lock.release();
  await (await lockDataDir(dir)).release();
});

test("lockDataDir refuses a directory held by another live process", async () => {
  // Our parent process is alive and is not us.
  await writeFile(join(dir, ".lock"), `${process.ppid}\n`);
  await assert.rejects(lockDataDir(dir), {
    message: new RegExp(`is in use by process ${process.ppid} `),
  });
  assert.equal(await readFile(join(dir, ".lock"), "utf8"), `${process.ppid}\n`, "a live lock is left alone");
});

test("lockDataDir takes over a lock whose process is gone", async () => {
  const exited = spawnSync(process.execPath, ["--version"]).pid;
  assert.ok(exited);
  await writeFile(join(dir, ".lock"), `${exited}\n`);
  const lock = await lockDataDir(dir);
  assert.equal(await readFile(join(dir, ".lock"), "utf8"), `${process.pid}\n`);
  await lock.release();
});

test("lockDataDir takes over a leftover lock with its own pid that it does not hold", async () => {
  await writeFile(join(dir, ".lock"), `${process.pid}\n`);
  const lock = await lockDataDir(dir);
  await lock.release();
});

test("lockDataDir takes over an empty or garbled lock file", async () => {
  await writeFile(join(dir, ".lock"), "");
  const lock = await lockDataDir(dir);
  await lock.release();
});
