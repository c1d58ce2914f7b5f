/**
 * The files of a browser app embedded in a binary: read from the binary's embedded files, else from
 * a folder (running from source), and named by a content hash so they can be cached for good.
 *
 * @example
 * const files = await loadWebFiles(["admin.js", "admin.css"], ".cache/web/admin");
 * const js = files && webAsset(files["admin.js"]!, "text/javascript; charset=utf-8");
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedFile } from "../platform/mod.ts";

export interface WebAsset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  /** First 12 hex characters of its SHA-256: part of its URL. */
  hash: string;
}

export function webAsset(body: Uint8Array<ArrayBuffer>, type: string): WebAsset {
  return { body, type, hash: createHash("sha256").update(body).digest("hex").slice(0, 12) };
}

/**
 * The named files, each embedded in the binary or else read from `dir`; undefined when any one is
 * missing (the app is not built).
 */
export async function loadWebFiles(
  names: readonly string[],
  dir: string,
): Promise<Record<string, Uint8Array<ArrayBuffer>> | undefined> {
  const read = async (name: string) => {
    const embedded = embeddedFile(name);
    if (embedded) return new Uint8Array(await embedded.arrayBuffer());
    try {
      return new Uint8Array(readFileSync(join(dir, name)));
    } catch {
      return undefined;
    }
  };
  const bodies = await Promise.all(names.map(read));
  if (bodies.some((b) => !b)) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, bodies[i]!]));
}
