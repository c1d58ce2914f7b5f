import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { crc32 } from "node:zlib";
import { canMapFiles, fileCrc32, mapFile } from "./mapped_file.ts";

test("fileCrc32 reads the file in chunks to zlib's CRC-32 of the whole", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mapped-file-"));
  try {
    const bytes = Uint8Array.from({ length: 10_007 }, (_, i) => (i * 31 + 7) & 0xff);
    const file = join(dir, "f.bin");
    await writeFile(file, bytes);
    for (const chunk of [1, 1000, 10_007, 1 << 20]) {
      assert.deepEqual(await fileCrc32(file, chunk), { crc: crc32(bytes), bytes: bytes.length });
    }
    await writeFile(file, new Uint8Array());
    assert.deepEqual(await fileCrc32(file), { crc: 0, bytes: 0 });
    await assert.rejects(fileCrc32(join(dir, "missing")), { code: "ENOENT" });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("off Bun nothing is mapped", () => {
  assert.equal(canMapFiles(), false);
  assert.equal(mapFile("/etc/hostname"), undefined);
});
