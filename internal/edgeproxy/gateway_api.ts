/**
 * The Kubernetes Gateway API objects the proxy implements (gateway.networking.k8s.io), read at the
 * version the API server prefers (discovery), and ConformanceReport files read and checked.
 */
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { CliError } from "../cli/mod.ts";
import type { ApiResource, KubeClient, KubeObject } from "../k8s/mod.ts";
import { discoveryFor } from "../k8s/discovery.ts";
import { listObjects } from "../k8s/resources.ts";
import { type ConformanceReport, validateReport } from "./conformance_report.ts";
import { GATEWAY_GROUP } from "./gateway_api_view.ts";

const INSTALL_HINT = "install the Gateway API CRDs (v1.4.0, standard channel): kubectl apply -f " +
  "https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.4.0/standard-install.yaml";

/** The served, preferred version of a Gateway API resource (discovery, refreshed once on a miss). */
export async function gatewayResource(client: KubeClient, plural: string): Promise<ApiResource> {
  const word = `${plural}.${GATEWAY_GROUP}`;
  const discovery = discoveryFor(client);
  const hit = (await discovery.mapper()).find(word) ?? (await discovery.mapper({ refresh: true })).find(word);
  if (!hit) throw new CliError(`the server does not serve ${word}: ${INSTALL_HINT}`);
  return hit;
}

export async function listGatewayApi(
  client: KubeClient,
  plural: string,
  namespace: string | undefined,
): Promise<KubeObject[]> {
  const res = await gatewayResource(client, plural);
  const opts = !res.namespaced || namespace === undefined ? { allNamespaces: true } : { namespace };
  return (await listObjects(client, res, opts)).items;
}

/** A ConformanceReport file, parsed and validated; an error names the file and every problem. */
export async function readConformanceReport(path: string): Promise<ConformanceReport> {
  let doc: unknown;
  try {
    doc = parseYaml(await readFile(path, "utf8"));
  } catch (err) {
    const why = (err as { code?: string }).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new CliError(`${path}: ${why.split("\n")[0]}`);
  }
  const problems = validateReport(doc);
  if (problems.length > 0) {
    throw new CliError(
      `${path} is not a valid ConformanceReport:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
  }
  return doc as ConformanceReport;
}
