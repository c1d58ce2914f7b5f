/**
 * Credentials for a chart repository (spec.source.render.helm.chart.secretRef): a Secret in the
 * Application's namespace labelled sync.gitsync.io/registry-credentials=true (seed section 8's rule for
 * registry credentials), read uncached every time with the manager's client, as Git credentials are.
 * Keys: `username` and `password`, or, for oci:// repositories, a `.dockerconfigjson` whose entry for
 * the registry host is used.
 */
import { isKubeApiError, type KubeClient } from "../../../../internal/k8s/mod.ts";
import { credentialsFor, parseImage } from "../../images/registry_client.ts";
import { REGISTRY_CREDENTIALS_LABEL } from "../../reconcilers/image_policy.ts";
import { type ChartCredentials, type ChartRef, ChartSourceError } from "./chart_source.ts";

export async function readChartCredentials(
  client: KubeClient,
  namespace: string,
  ref: ChartRef & { secretRef?: { name: string } },
): Promise<ChartCredentials | undefined> {
  const name = ref.secretRef?.name;
  if (!name) return undefined;
  let secret: { metadata?: { labels?: Record<string, string> }; data?: Record<string, string> };
  try {
    secret = await client.request({ path: `/api/v1/namespaces/${namespace}/secrets/${name}` });
  } catch (err) {
    if (isKubeApiError(err, 404)) {
      throw new ChartSourceError(`Secret ${namespace}/${name} (render.helm.chart.secretRef) does not exist`);
    }
    throw err;
  }
  if (secret.metadata?.labels?.[REGISTRY_CREDENTIALS_LABEL] !== "true") {
    throw new ChartSourceError(
      `Secret ${namespace}/${name} is not labelled ${REGISTRY_CREDENTIALS_LABEL}=true, so it is not used for chart repository credentials`,
    );
  }
  const value = (k: string) =>
    secret.data?.[k] ? Buffer.from(secret.data[k]!, "base64").toString("utf8") : undefined;
  const username = value("username");
  const password = value("password");
  if (username !== undefined && password !== undefined) return { username, password };
  const config = value(".dockerconfigjson");
  if (config && ref.repository.startsWith("oci://")) {
    const found = credentialsFor(
      config,
      parseImage(`${ref.repository.slice(6).replace(/\/+$/, "")}/${ref.name}`),
    );
    if (found) return found;
  }
  throw new ChartSourceError(
    `Secret ${namespace}/${name} has neither username and password nor a .dockerconfigjson entry for the chart's registry`,
  );
}
