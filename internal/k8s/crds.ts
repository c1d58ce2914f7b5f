/**
 * CustomResourceDefinitions a tool carries: read from YAML files (embedded in the compiled binary,
 * or from the repository when run from source), applied, and waited for until the API server serves
 * them. edgectl and gitsync-manager both `install-crds` through this.
 *
 * @example
 * const crds = await readCrds(["application.yaml"], new URL("../../crds/sync.gitsync.io/", import.meta.url));
 * const results = await installCrds(client, crds, { fieldManager: "gitsync-manager", timeoutMs: 60_000 });
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { embeddedFile } from "../platform/mod.ts";
import type { KubeClient } from "./client.ts";
import { discoveryFor } from "./discovery.ts";
import { applyObject, getObject, type KubeObject } from "./resources.ts";

/** Each file from the binary's embedded files when there, else from `dir`. */
export async function readCrds(files: readonly string[], dir: URL): Promise<KubeObject[]> {
  return await Promise.all(files.map(async (file) => {
    const text = await (embeddedFile(file)?.text() ?? readFile(new URL(file, dir), "utf8"));
    return parse(text) as KubeObject;
  }));
}

export interface InstalledCrd {
  name: string;
  kind: string;
  /** created, configured or unchanged. */
  action: string;
  established: boolean;
}

export class CrdsNotEstablishedError extends Error {
  override name = "CrdsNotEstablishedError";
}

/** Applies each CRD (client-side, as kubectl apply), then waits until every one is Established. */
export async function installCrds(
  client: KubeClient,
  crds: KubeObject[],
  options: { fieldManager: string; timeoutMs: number },
): Promise<InstalledCrd[]> {
  const results: InstalledCrd[] = [];
  for (const crd of crds) {
    const r = await applyObject(client, crd, { fieldManager: options.fieldManager });
    results.push({
      name: crd.metadata!.name!,
      kind: String((crd.spec as { names: { kind: string } }).names.kind),
      action: r.action,
      established: false,
    });
  }
  const res = await discoveryFor(client).forKind("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    for (const crd of results.filter((c) => !c.established)) {
      crd.established = isEstablished(await getObject(client, res, crd.name));
    }
    const waiting = results.filter((c) => !c.established);
    if (waiting.length === 0) return results;
    if (Date.now() >= deadline) {
      throw new CrdsNotEstablishedError(
        `not established after ${options.timeoutMs / 1000} s: ${waiting.map((c) => c.name).join(", ")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
}
