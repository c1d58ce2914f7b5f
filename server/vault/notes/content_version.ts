/**
 * A note's version: the first 128 bits of the SHA-256 of its bytes, hex. A content hash (rather
 * than mtime + size) is the same on every replica and after a backup restore, and an edit that
 * keeps the size within the same second still changes it.
 */
import { createHash } from "node:crypto";

export function contentVersion(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 32);
}
