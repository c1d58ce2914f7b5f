import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { markServing, processTempName, removeLeftovers, serversUsing } from "./serving_marker.ts";

test("servers using a notes folder: live ones named, dead ones of this host forgotten, other hosts kept", async () => {
  const dir = await mkdtemp(join(tmpdir(), "serving-"));
  const child = spawn("sleep", ["30"]);
  try {
    const mine = await markServing(dir);
    assert.deepEqual(await serversUsing(dir), [], "this process does not count itself");
    await writeFile(join(dir, ".serving", `${hostname()}.${child.pid}`), "");
    await writeFile(join(dir, ".serving", `${hostname()}.999999999`), "");
    await writeFile(join(dir, ".serving", "elsewhere.42"), "");
    assert.deepEqual(
      (await serversUsing(dir)).sort(),
      [`process ${child.pid}`, "process 42 on host elsewhere"].sort(),
    );
    assert.ok(
      !(await readdir(join(dir, ".serving"))).includes(`${hostname()}.999999999`),
      "a dead marker goes",
    );
    await mine.release();
    assert.ok(!(await readdir(join(dir, ".serving"))).includes(`${hostname()}.${process.pid}`));
  } finally {
    child.kill();
    await rm(dir, { recursive: true, force: true });
  }
});

test("leftover uploads of dead processes of this host are removed, nobody else's", async () => {
  const dir = await mkdtemp(join(tmpdir(), "imports-"));
  try {
    await mkdir(dir, { recursive: true });
    const live = processTempName(".zip");
    const dead = `${hostname()}.999999999.${crypto.randomUUID()}.zip`;
    const other = `elsewhere.42.${crypto.randomUUID()}.zip`;
    for (const n of [live, dead, other]) await writeFile(join(dir, n), "x");
    assert.equal(await removeLeftovers(dir), 1);
    assert.deepEqual((await readdir(dir)).sort(), [live, other].sort());
    assert.equal(await removeLeftovers(join(dir, "missing")), 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
