import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { crc32 } from "node:zlib";
import { canMapFiles, fdCrc32Sync, fileCrc32, mapFile } from "./mapped_file.ts";

test("fileCrc32 reads the file in chunks to zlib's CRC-32 of the whole", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mapped-file-"));
  try {
    const bytes = Uint8Array.from({ length: 10_007 }, (_, i) => (i * 31 + 7) & 0xff);
    const file = join(dir, "f.bin");
    await writeFile(file, bytes);
    for (const chunk of [1, 1000, 10_007, 1 << 20]) {
      assert.deepEqual(fileCrc32(file, chunk), { crc: crc32(bytes), bytes: bytes.length });
    }
    await writeFile(file, new Uint8Array());
    assert.deepEqual(fileCrc32(file), { crc: 0, bytes: 0 });
    assert.throws(() => fileCrc32(join(dir, "missing")), { code: "ENOENT" });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("fdCrc32Sync is zlib's CRC-32 of a byte range, in any chunk size; a file shorter than the range throws", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mapped-file-"));
  try {
    const bytes = Uint8Array.from({ length: 10_007 }, (_, i) => (i * 17 + 3) & 0xff);
    const file = join(dir, "f.bin");
    await writeFile(file, bytes);
    const fd = openSync(file, "r");
    try {
      for (const chunk of [1, 1000, 1 << 20]) {
        assert.equal(fdCrc32Sync(fd, 24, bytes.length, chunk), crc32(bytes.subarray(24)));
        assert.equal(fdCrc32Sync(fd, 100, 5_000, chunk), crc32(bytes.subarray(100, 5_000)));
      }
      assert.equal(fdCrc32Sync(fd, 7, 7), 0);
      assert.throws(() => fdCrc32Sync(fd, 0, bytes.length + 1), /shorter/);
    } finally {
      closeSync(fd);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("off Bun nothing is mapped", () => {
  assert.equal(canMapFiles(), false);
  assert.equal(mapFile("/etc/hostname"), undefined);
});
