import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { procStat } from "./proc_stat.ts";

test("procStat reads a process's name, parent and CPU, a name with spaces and ')' included", async () => {
  const before = procStat(process.pid);
  assert.equal(before.ppid, process.ppid);
  const until = performance.now() + 300;
  while (performance.now() < until) Math.sqrt(Math.random());
  assert.ok(procStat(process.pid).cpuMs - before.cpuMs >= 100, "CPU time counted");

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
