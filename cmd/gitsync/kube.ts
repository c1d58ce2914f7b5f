/**
 * What every gitsync command shares: the global flags (--kubeconfig, --context, -n, also from
 * GITSYNC_CONTEXT / GITSYNC_NAMESPACE), the session, and reads of gitsync's objects with errors a
 * user can act on (a missing CRD points at install-crds, a missing object names itself).
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { CliError } from "../../internal/cli/mod.ts";
import { addKubeOptions, type KubeSession, withKubeSession } from "../../internal/k8s/cli_session.ts";
import type { KubeClient } from "../../internal/k8s/mod.ts";
import { isKubeApiError } from "../../internal/k8s/errors.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";
import { API_VERSION, type Application, type Revision } from "../../controller/gitsync/api/mod.ts";
import { getResource, listResources, type Plural } from "../../controller/gitsync/client/mod.ts";

export const OUTPUT_ENV = "GITSYNC_OUTPUT";

export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "GITSYNC");
}

export function withSession<T>(command: CommandUnknownOpts, fn: (s: KubeSession) => Promise<T>): Promise<T> {
  return withKubeSession(command, `gitsync/${TOOL_VERSION}`, fn);
}

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

/** The Revision a command about an Application means: --revision, else the one it wants deployed. */
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

export const shortCommit = (sha: string | undefined) => (sha ? sha.slice(0, 12) : "");

export function condition(
  o: { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } },
  type: string,
) {
  return o.status?.conditions?.find((c) => c.type === type);
}
