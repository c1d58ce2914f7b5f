import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeFrame, encodeFrame } from "./frame.ts";
import { writeMappedFile } from "../platform/mod.ts";
import { readFrameFile } from "./frame_file.ts";

const MAGIC = "frame-file-test\n";

describe("frame files", () => {
  it("write in pieces, replace by rename (a mapped file is never rewritten in place), and read back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "frame-file-"));
    try {
      const file = join(dir, "index.bin");
      const values = Float64Array.from({ length: 40_000 }, (_, i) => i * 1.5);
      const first = encodeFrame(MAGIC, { n: 1 }, [values], "crc32");
      await writeMappedFile(file, first);
      assert.deepEqual(
        new Uint8Array(await readFile(file)),
        first,
        "320 KB written whole across 64 KB writes",
      );
      const inode = statSync(file).ino;
      const second = encodeFrame(MAGIC, { n: 2 }, [values.subarray(1)], "crc32");
      await writeMappedFile(file, second);
      assert.notEqual(statSync(file).ino, inode, "a new file renamed over the old one");
      assert.deepEqual(readdirSync(dir), ["index.bin"], "no temporary file left");
      const read = await readFrameFile(file, MAGIC);
      assert.equal(read.mapped, typeof (globalThis as { Bun?: unknown }).Bun === "object");
      const frame = decodeFrame(MAGIC, read.bytes, { checksum: "crc32", checked: read.checked });
      assert.deepEqual(frame.header, { n: 2 });
      assert.deepEqual(frame.next(Float64Array), values.subarray(1));
      // Damaged: refused by the mapped read's streamed check or by decodeFrame after a plain read.
      const bad = Uint8Array.from(second);
      bad[bad.length >> 1]! ^= 1;
      await writeMappedFile(file, bad);
      const load = async () => {
        const r = await readFrameFile(file, MAGIC);
        decodeFrame(MAGIC, r.bytes, { checksum: "crc32", checked: r.checked });
      };
      await assert.rejects(load, /checksum mismatch/);
      await writeMappedFile(file, second.subarray(0, second.length - 8));
      await assert.rejects(load, /checksum mismatch/, "truncated");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
