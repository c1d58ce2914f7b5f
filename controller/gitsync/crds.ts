/**
 * The sync.gitsync.io CustomResourceDefinitions (crds/sync.gitsync.io/*.yaml), embedded in
 * dist/gitsync-manager and dist/gitsync (scripts/lib/tools.ts ASSETS) and read from the repository
 * when run from source. Applications, Repositories and Revisions are the public integration API.
 */
import type { KubeObject } from "../../internal/k8s/mod.ts";

/** One file per kind; base names are unique among every tool's embedded files. */
export const CRD_FILES = [
  "application.yaml",
  "repository.yaml",
  "revision.yaml",
  "imagepolicy.yaml",
  "notificationsink.yaml",
  "healthcheck.yaml",
] as const;

export const CRD_DIR = new URL("../../crds/sync.gitsync.io/", import.meta.url);

export async function loadCrds(): Promise<KubeObject[]> {
  // Loaded here: the gitsync CLI imports API_VERSION from this module at every start.
  const { readCrds } = await import("../../internal/k8s/crds.ts");
  return await readCrds(CRD_FILES, CRD_DIR);
}
