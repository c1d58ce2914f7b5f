/**
 * The edgeproxy.io CustomResourceDefinitions, read from crds/edgeproxy.io/*.yaml. A compiled edgectl
 * carries them as embedded files (scripts/lib/tools.ts ASSETS), so `edgectl install-crds` works from
 * the single binary in any directory; from source they are read from the repository.
 */
import type { KubeObject } from "../k8s/mod.ts";

/** One file per kind; base names are unique among every tool's embedded files. */
export const CRD_FILES = [
  "proxygateway.yaml",
  "proxyroute.yaml",
  "proxybackend.yaml",
  "proxyvip.yaml",
  "proxypolicy.yaml",
  "tcproute.yaml",
  "tlsroute.yaml",
  "grpcroute.yaml",
  "ippool.yaml",
  "wasmplugin.yaml",
  "certificate.yaml",
  "proxywanlink.yaml",
  "proxywanpolicy.yaml",
  "proxyfederation.yaml",
  "proxycluster.yaml",
] as const;

export const CRD_DIR = new URL("../../crds/edgeproxy.io/", import.meta.url);

export async function loadCrds(): Promise<KubeObject[]> {
  const { readCrds } = await import("../k8s/crds.ts");
  return await readCrds(CRD_FILES, CRD_DIR);
}
