/**
 * Reads of gitsync's objects as the CLI makes them, with errors a user can act on: a missing CRD
 * points at install-crds, a missing object names itself, and the Revision a command about an
 * Application means is found for it.
 *
 * @example
 * const app = await getApplication(client, "shop", "web");
 * const rev = await revisionOf(client, app); // the one it wants deployed
 */
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { isKubeApiError } from "../../../internal/k8s/errors.ts";
import { API_VERSION, type Application, type Revision } from "../api/mod.ts";
import { getResource, listResources, type Plural } from "./resources.ts";

/** Reads one object; NotFound and a missing CRD become errors that say what to do. */
export async function getOne<T>(client: KubeClient, plural: Plural, kind: string, ns: string, name: string) {
  try {
    return await getResource<T>(client, plural, ns, name);
  } catch (err) {
    throw explain(err, kind, `${kind} ${ns}/${name} not found`);
  }
}

export async function listAll<T>(
  client: KubeClient,
  plural: Plural,
  kind: string,
  namespace: string | undefined,
  labelSelector?: string,
): Promise<T[]> {
  try {
    return await listResources<T>(client, plural, namespace, labelSelector);
  } catch (err) {
    throw explain(err, kind);
  }
}

function explain(err: unknown, kind: string, notFound?: string): unknown {
  if (isKubeApiError(err, 404)) {
    const body = (err as { serverMessage?: string }).serverMessage ?? "";
    if (notFound && !/the server could not find the requested resource/.test(body)) {
      return new CliError(notFound);
    }
    return new CliError(
      `the cluster does not serve ${kind} (${API_VERSION}): install gitsync's CRDs with \`gitsync-manager install-crds\``,
    );
  }
  return err;
}

export const getApplication = (client: KubeClient, ns: string, name: string) =>
  getOne<Application>(client, "applications", "Application", ns, name);

export const getRevision = (client: KubeClient, ns: string, name: string) =>
  getOne<Revision>(client, "revisions", "Revision", ns, name);

/** The Revision a command about an Application means: `explicit` (--revision), else the one it wants deployed. */
export async function revisionOf(
  client: KubeClient,
  app: Application,
  explicit?: string,
): Promise<Revision> {
  const ns = app.metadata!.namespace!;
  const name = explicit ?? app.status?.desiredRevision;
  if (!name) {
    throw new CliError(
      `Application ${ns}/${
        app.metadata!.name
      } has no Revision yet (see its Ready condition: gitsync apps -n ${ns})`,
    );
  }
  return await getRevision(client, ns, name);
}
