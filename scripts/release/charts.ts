/**
 * The release's charts and manifests: deploy/<tool>/chart packaged at the release's version (chart version
 * and appVersion, so the default image tag is the release's) into <name>-<version>.tgz, and
 * gitsync's install.yaml rendered with the image pinned to the digest the release built.
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { installManifest } from "../gen_install.ts";
import { ensureBinary } from "../testenv/go_build.ts";
import { HELM } from "../testenv/servers.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const run = promisify(execFile);

/** The charts, by the tool whose image they run. */
export const CHARTS = {
  memsvc: "deploy/memsvc/chart",
  vault: "deploy/vault/chart",
  "gitsync-manager": "deploy/gitsync/chart",
} as const;

/** A helm that reads no configuration of the user running the release. */
export const helmEnv = (home: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  HELM_CACHE_HOME: join(home, "cache"),
  HELM_CONFIG_HOME: join(home, "config"),
  HELM_DATA_HOME: join(home, "data"),
});

export async function releaseCharts(o: {
  tools: readonly (keyof typeof CHARTS)[];
  version: string;
  out: string;
  /** tool => image index digest, for the pinned install.yaml. */
  digests: Record<string, string>;
  log: (line: string) => void;
}): Promise<string[]> {
  const helm = (await ensureBinary(HELM, o.log)).path;
  const dir = o.out;
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const tool of o.tools) {
    const { stdout } = await run(
      helm,
      ["package", join(ROOT, CHARTS[tool]), "--version", o.version, "--app-version", o.version, "-d", dir],
      { env: helmEnv(join(o.out, ".work", "helm")) },
    );
    files.push(stdout.trim().split(": ").pop()!);
  }
  const digest = o.digests["gitsync-manager"];
  if (o.tools.includes("gitsync-manager") && digest) {
    const file = join(o.out, `gitsync-manager_${o.version}_install.yaml`);
    writeFileSync(file, await installManifest(helm, [`image.tag=${o.version}`, `image.digest=${digest}`]));
    files.push(file);
  }
  o.log(`charts: ${files.map((f) => f.split("/").pop()).join(", ")}`);
  return files;
}
