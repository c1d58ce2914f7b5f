import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atomicWrite, atomicWriteAll, isTempName, removeLeftoverTemps } from "./atomic_write.ts";
import { KeyedLock } from "./keyed_lock.ts";

describe("atomicWrite", () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), "atomic-"))));
  after(async () => await rm(dir, { recursive: true, force: true }));

  it("replaces a file, or refuses to when exclusive, leaving no temporary file either way", async () => {
    const p = join(dir, "n.md");
    await atomicWrite(p, "one");
    await atomicWrite(p, "two", { mode: 0o600 });
    assert.equal(await readFile(p, "utf8"), "two");
    assert.equal((await stat(p)).mode & 0o777, 0o600);
    await assert.rejects(atomicWrite(p, "three", { exclusive: true }), /EEXIST/);
    assert.equal(await readFile(p, "utf8"), "two");
    await assert.rejects(atomicWrite(join(dir, "missing", "x.md"), "x"), /ENOENT/);
    assert.deepEqual(await readdir(dir), ["n.md"]);
  });

  it("writes many files together, one file's failure leaving the others written", async () => {
    const sub = join(dir, "many");
    await mkdir(sub);
    await writeFile(join(sub, "taken.md"), "first");
    const errors = await atomicWriteAll([
      { path: join(sub, "a.md"), data: "A", exclusive: true },
      { path: join(sub, "taken.md"), data: "second", exclusive: true },
      { path: join(sub, "none", "c.md"), data: "C" },
      { path: join(sub, "d.md"), data: new TextEncoder().encode("D"), mode: 0o600 },
    ]);
    assert.deepEqual(errors.map((e) => (e as NodeJS.ErrnoException | undefined)?.code), [
      undefined,
      "EEXIST",
      "ENOENT",
      undefined,
    ]);
    assert.equal(await readFile(join(sub, "a.md"), "utf8"), "A");
    assert.equal(await readFile(join(sub, "taken.md"), "utf8"), "first");
    assert.equal(await readFile(join(sub, "d.md"), "utf8"), "D");
    assert.equal((await stat(join(sub, "d.md"))).mode & 0o777, 0o600);
    assert.deepEqual((await readdir(sub)).sort(), ["a.md", "d.md", "taken.md"]);
  });

  it("never shows a reader half a file", async () => {
    const p = join(dir, "big.md");
    const a = "a".repeat(512 * 1024);
    const b = "b".repeat(512 * 1024);
    await writeFile(p, a);
    let reads = 0;
    const writes = (async () => {
      for (let i = 0; i < 20; i++) await atomicWrite(p, i % 2 ? a : b);
    })();
    let done = false;
    writes.finally(() => (done = true));
    while (!done) {
      const text = await readFile(p, "utf8");
      assert.ok(text === a || text === b, `torn read of ${text.length} bytes`);
      reads++;
    }
    await writes;
    assert.ok(reads > 0);
  });

  it("names temporary files so listings can skip them", () => {
    assert.ok(isTempName(".n.md.0a1b2c3d4e5f.tmp"));
    assert.ok(!isTempName("n.md"));
  });
});

describe("KeyedLock", () => {
  it("runs sections of one key in order and of different keys side by side", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const step = (key: string, name: string, ms: number) =>
      lock.run(key, async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
      });
    const failing = lock.run("a", () => Promise.reject(new Error("boom")));
    await Promise.all([step("a", "a1", 30), step("a", "a2", 1), step("b", "b1", 5), failing.catch(() => {})]);
    assert.deepEqual(log.filter((l) => / a\d/.test(l)), ["start a1", "end a1", "start a2", "end a2"]);
    assert.ok(log.indexOf("end b1") < log.indexOf("end a1"), log.join());
    await assert.rejects(failing, /boom/);
  });
});

describe("removeLeftoverTemps", () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), "leftovers-"))));
  after(async () => await rm(dir, { recursive: true, force: true }));

  it("removes the temporary files of writes cut short, older than asked, and nothing else", async () => {
    const root = join(dir, "leftovers");
    await mkdir(join(root, "u1", "Projects"), { recursive: true });
    await mkdir(join(root, "u1", ".trash"), { recursive: true });
    const old = Date.now() / 1000 - 3600;
    const files = {
      crashed: join(root, "u1", "Projects", ".Plan.md.0123456789ab.tmp"),
      inFlight: join(root, "u1", ".Fresh.md.ba9876543210.tmp"),
      usersOwn: join(root, "u1", ".scratch.tmp"),
      note: join(root, "u1", "Projects", "Plan.md"),
      inTrash: join(root, "u1", ".trash", ".x.md.0123456789ab.tmp"),
    };
    for (const f of Object.values(files)) await writeFile(f, "x");
    for (const f of [files.crashed, files.usersOwn, files.note, files.inTrash]) await utimes(f, old, old);
    const removed = await removeLeftoverTemps(root, Date.now() - 60_000);
    assert.deepEqual(removed, ["u1/Projects/.Plan.md.0123456789ab.tmp"]);
    assert.deepEqual((await readdir(join(root, "u1"))).sort(), [
      ".Fresh.md.ba9876543210.tmp",
      ".scratch.tmp",
      ".trash",
      "Projects",
    ]);
    assert.deepEqual(await readdir(join(root, "u1", "Projects")), ["Plan.md"]);
  });
});
