/**
 * Credentials for a chart repository (spec.source.render.helm.chart.secretRef): a Secret in the
 * Application's namespace labelled sync.gitsync.io/registry-credentials=true (seed section 8's rule for
 * registry credentials), read uncached every time with the manager's client, as Git credentials are.
 * Keys: `username` and `password`, or, for oci:// repositories, a `.dockerconfigjson` whose entry for
 * the registry host is used.
 */
import type { KubeClient } from "../../../../internal/k8s/mod.ts";
import { credentialsFor, parseImage } from "../../images/registry_client.ts";
import { type ChartCredentials, type ChartRef, ChartSourceError } from "./chart_source.ts";
import { REGISTRY_CREDENTIALS_LABEL } from "../../api/mod.ts";
import { readLabelledSecret, secretText } from "../../client/mod.ts";

export async function readChartCredentials(
  client: KubeClient,
  namespace: string,
  ref: ChartRef & { secretRef?: { name: string } },
): Promise<ChartCredentials | undefined> {
  const name = ref.secretRef?.name;
  if (!name) return undefined;
  const secret = await readLabelledSecret(client, {
    namespace,
    name,
    field: "render.helm.chart.secretRef",
    label: REGISTRY_CREDENTIALS_LABEL,
    notUsed: "it is not used for chart repository credentials",
  }, (message) => new ChartSourceError(message));
  const value = (k: string) => secretText(secret, k);
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
