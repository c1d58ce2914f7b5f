/**
 * An ImagePolicy's registry credentials (seed section 8): only from a dockerconfigjson Secret in its
 * namespace labelled `sync.gitsync.io/registry-credentials=true`, read with an uncached get every time.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { type ImagePolicy, REGISTRY_CREDENTIALS_LABEL } from "../api/mod.ts";
import { readLabelledSecret, secretText } from "../client/mod.ts";
import { credentialsFor, parseImage, type RegistryCredentials } from "./registry_client.ts";

/** The Secret is missing, unlabelled or has no .dockerconfigjson: reason AuthenticationFailure. */
export class RegistryCredentialsRefused extends Error {
  override name = "RegistryCredentialsRefused";
  readonly reason = "AuthenticationFailure";
}

export /** The registry credentials of an ImagePolicy, from its labelled dockerconfigjson Secret (uncached). */
async function readRegistryCredentials(
  client: KubeClient,
  policy: ImagePolicy,
): Promise<RegistryCredentials | undefined> {
  const name = policy.spec.secretRef?.name;
  if (!name) return undefined;
  const ns = policy.metadata!.namespace!;
  const refuse = (message: string) => new RegistryCredentialsRefused(message);
  const secret = await readLabelledSecret(client, {
    namespace: ns,
    name,
    field: "spec.secretRef",
    label: REGISTRY_CREDENTIALS_LABEL,
    notUsed: "it is not used for registry credentials",
  }, refuse);
  const config = secretText(secret, ".dockerconfigjson");
  if (!config) {
    throw refuse(`Secret ${ns}/${name} has no .dockerconfigjson (type kubernetes.io/dockerconfigjson)`);
  }
  return credentialsFor(config, parseImage(policy.spec.image));
}
