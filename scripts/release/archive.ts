/**
 * A release archive: `<tool>_<version>_<os>_<arch>.tar.gz` holding the executable, LICENSE and
 * THIRD_PARTY_NOTICES.md at its top level. Members in a fixed order with one mtime and root ownership,
 * gzip without a name or time in its header: the same files give the same archive.
 */
import { gzipSync } from "node:zlib";
import { writeTar } from "../lib/tar.ts";

export function releaseArchive(
  files: { binary: { name: string; data: Uint8Array }; license: string; notices: string },
  mtime: number,
): Uint8Array {
  const text = (s: string) => new TextEncoder().encode(s);
  const tar = writeTar([
    { path: files.binary.name, type: "file", mode: 0o755, data: files.binary.data },
    { path: "LICENSE", type: "file", mode: 0o644, data: text(files.license) },
    { path: "THIRD_PARTY_NOTICES.md", type: "file", mode: 0o644, data: text(files.notices) },
  ], mtime);
  return gzipSync(tar, { level: 6 });
}
