/**
 * Reading what gitsync's objects point at: Secrets by reference, uncached every time (seed section
 * 5.3), and the mapping of a missing object (404) to the caller's own refusal, which its reconciler
 * turns into a condition with a reason.
 *
 * @example
 * const secret = await readLabelledSecret(client, {
 *   namespace, name, field: "spec.secretRef", label: REGISTRY_CREDENTIALS_LABEL,
 *   notUsed: "it is not used for registry credentials",
 * }, (message) => new Refused("AuthenticationFailure", message));
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { isKubeApiError } from "../../../internal/k8s/errors.ts";

export interface SecretData {
  metadata?: { labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** `request`'s answer, or `otherwise()` (which may throw) when the object does not exist: 404. */
export async function ifNotFound<T, U>(request: Promise<T>, otherwise: () => U): Promise<T | U> {
  try {
    return await request;
  } catch (err) {
    if (isKubeApiError(err, 404)) return otherwise();
    throw err;
  }
}

/** A Secret in `namespace`, read uncached; undefined when it does not exist. */
export function readSecret(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<SecretData | undefined> {
  return ifNotFound(
    client.request<SecretData>({ path: `/api/v1/namespaces/${namespace}/secrets/${name}` }),
    () => undefined,
  );
}

/** The text of a Secret's key (base64-decoded); undefined when the key is absent or empty. */
export function secretText(secret: SecretData, key: string): string | undefined {
  const value = secret.data?.[key];
  return value ? Buffer.from(value, "base64").toString("utf8") : undefined;
}

export interface LabelledSecretRef {
  namespace: string;
  name: string;
  /** The field that names the Secret, for the message (`spec.git.auth.secretRef`). */
  field: string;
  /** The label that must be `true` for the Secret to be used. */
  label: string;
  /** What follows "so" when the label is missing: "it is not used for Git credentials". */
  notUsed: string;
}

/**
 * A Secret that may serve only when labelled `label=true` (credentials, decryption keys), read uncached.
 * A missing Secret or label is refused with `refuse(message)`, an Error of the caller's.
 */
export async function readLabelledSecret(
  client: KubeClient,
  ref: LabelledSecretRef,
  refuse: (message: string) => Error,
): Promise<SecretData> {
  const { namespace, name } = ref;
  const secret = await readSecret(client, namespace, name);
  if (!secret) throw refuse(`Secret ${namespace}/${name} (${ref.field}) does not exist`);
  if (secret.metadata?.labels?.[ref.label] !== "true") {
    throw refuse(`Secret ${namespace}/${name} is not labelled ${ref.label}=true, so ${ref.notUsed}`);
  }
  return secret;
}
