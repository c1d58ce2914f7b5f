/**
 * An npm package's tarball as the registry serves it, fetched once into a cache outside the repo and
 * checked against its pinned integrity (the sha512 the lock file and the registry record) on every read.
 * `npm_config_registry` names a mirror.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { pinnedDownload } from "./pinned_download.ts";

const NPM_REGISTRY = (process.env.npm_config_registry || "https://registry.npmjs.org").replace(/\/+$/, "");

export interface NpmTarball {
  /** The package name, scoped or not: `@oven/bun-linux-aarch64`. */
  name: string;
  version: string;
  /** `sha512-<base64>`, as package-lock.json's `integrity`. */
  integrity: string;
}

const sha512 = (b: Uint8Array) => `sha512-${createHash("sha512").update(b).digest("base64")}`;

/** The tarball's bytes from `cacheDir`, downloaded when absent; throws when the digest differs. */
export async function npmTarball(
  pkg: NpmTarball,
  cacheDir: string,
  log: (line: string) => void,
): Promise<Uint8Array> {
  const file = `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
  const url = `${NPM_REGISTRY}/${pkg.name}/-/${pkg.name.split("/").pop()}-${pkg.version}.tgz`;
  return await pinnedDownload({
    path: join(cacheDir, file),
    url: () => url,
    digest: sha512,
    pin: pkg.integrity,
    announce: () => log(`downloading ${url} (once)`),
  });
}
