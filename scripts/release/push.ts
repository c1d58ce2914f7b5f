/**
 * `deno task release:push --registry REGISTRY/OWNER [--dir dist/release]`: pushes what `deno task release`
 * built: each image layout in oci/<tool>/ to <registry>/<tool>:<version> with crane (its index, both
 * architectures, digests unchanged), and each chart (<chart>-<version>.tgz) to oci://<registry>/charts with helm. Log in
 * first (`crane auth login`, `helm registry login`); a loopback registry is spoken to over plain HTTP.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { ensureBinary } from "../testenv/go_build.ts";
import { CRANE, HELM } from "../testenv/servers.ts";

const run = promisify(execFile);

/** Pushes one OCI image layout; returns the pushed reference with its digest (repo@sha256:...). */
export async function pushImage(crane: string, layout: string, ref: string): Promise<string> {
  const { stdout } = await run(crane, ["push", layout, ref], { maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** Logs crane and helm in to the registry's host when REGISTRY_USERNAME and REGISTRY_PASSWORD are set (CI). */
async function login(host: string, crane: string, helm: string) {
  const { REGISTRY_USERNAME: user, REGISTRY_PASSWORD: password } = process.env;
  if (!user || !password) return;
  for (
    const [bin, args] of [
      [crane, ["auth", "login", host, "--username", user, "--password-stdin"]],
      [helm, ["registry", "login", host, "--username", user, "--password-stdin"]],
    ] as const
  ) {
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        bin,
        [...args],
        (err) => (err ? reject(new Error(`${bin} login to ${host} failed`)) : resolve()),
      );
      child.stdin!.end(password);
    });
  }
}

export async function pushRelease(o: { dir: string; registry: string; log: (line: string) => void }) {
  const registry = o.registry.replace(/\/+$/, "");
  await login(
    registry.split("/")[0]!,
    (await ensureBinary(CRANE, o.log)).path,
    (await ensureBinary(HELM, o.log)).path,
  );
  const oci = join(o.dir, "oci");
  const pushed: string[] = [];
  if (existsSync(oci)) {
    const crane = (await ensureBinary(CRANE, o.log)).path;
    for (const tool of readdirSync(oci).sort()) {
      const index = JSON.parse(readFileSync(join(oci, tool, "index.json"), "utf8"));
      const version = index.manifests[0].annotations["org.opencontainers.image.ref.name"];
      const ref = await pushImage(crane, join(oci, tool), `${registry}/${tool}:${version}`);
      o.log(`pushed ${ref}`);
      pushed.push(ref);
    }
  }
  const charts = readdirSync(o.dir).filter((f) => f.endsWith(".tgz")).sort();
  if (charts.length) {
    const helm = (await ensureBinary(HELM, o.log)).path;
    const plainHttp = /^(127\.|localhost[:/])/.test(registry) ? ["--plain-http"] : [];
    for (const chart of charts) {
      const { stderr, stdout } = await run(helm, [
        "push",
        join(o.dir, chart),
        `oci://${registry}/charts`,
        ...plainHttp,
      ]);
      o.log(`pushed chart ${chart}: ${(stdout + stderr).match(/Digest: (\S+)/)?.[1] ?? "ok"}`);
    }
  }
  return pushed;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const registry = value("--registry");
  if (
    !registry || args.some((a, i) => a.startsWith("--") && !["--registry", "--dir"].includes(a) && i >= 0)
  ) {
    console.error("usage: deno task release:push --registry REGISTRY/OWNER [--dir dist/release]");
    process.exit(2);
  }
  try {
    await pushRelease({
      dir: resolve(value("--dir") ?? "dist/release"),
      registry,
      log: (line) => console.log(`release:push: ${line}`),
    });
  } catch (err) {
    console.error(`release:push: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
    process.exit(1);
  }
}
