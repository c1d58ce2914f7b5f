import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { procMemory, procStat } from "./proc_stat.ts";

test("procStat reads a process's name, parent and CPU, a name with spaces and ')' included", async () => {
  const before = procStat(process.pid);
  assert.equal(before.ppid, process.ppid);
  // Spin until 100 ms of CPU are counted: on a loaded machine 300 ms of wall time can be far less CPU.
  const until = performance.now() + 10_000;
  let spent = 0;
  while (spent < 100 && performance.now() < until) {
    for (let i = 0; i < 1e5; i++) Math.sqrt(Math.random());
    spent = procStat(process.pid).cpuMs - before.cpuMs;
  }
  assert.ok(spent >= 100, `CPU time counted: ${spent} ms`);

  const dir = mkdtempSync(join(tmpdir(), "proc-stat-"));
  const odd = join(dir, "a) b");
  copyFileSync("/bin/sleep", odd);
  const child = spawn(odd, ["5"]);
  try {
    await new Promise((resolve) => child.once("spawn", resolve));
    const stat = procStat(child.pid!);
    assert.equal(stat.comm, "a) b");
    assert.equal(stat.ppid, process.pid);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(() => procStat(2 ** 22 + 1), { code: "ENOENT" });
});

test("procMemory reads resident, anonymous, file-backed and peak memory, and sees a process grow", () => {
  const before = procMemory("self");
  assert.ok(procMemory(process.pid).peakMb >= before.rssMb);
  assert.ok(before.rssMb > 0 && before.anonMb > 0 && before.fileMb > 0);
  assert.ok(
    Math.abs(before.anonMb + before.fileMb - before.rssMb) < 4,
    "RssAnon + RssFile (+ RssShmem) is VmRSS",
  );
  const block = new Uint8Array(64 * 2 ** 20).fill(1);
  const after = procMemory("self");
  assert.ok(after.anonMb - before.anonMb > 48, `64 MB touched: ${before.anonMb} -> ${after.anonMb}`);
  assert.ok(after.peakMb >= after.rssMb);
  assert.equal(block[block.length - 1], 1);
  assert.throws(() => procMemory(2 ** 22 + 1), { code: "ENOENT" });
});
