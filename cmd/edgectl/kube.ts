/**
 * What every edgectl command that talks to Kubernetes shares: the global flags (--kubeconfig,
 * --context, -n), the client they select, type words resolved through the resource table, and the
 * REST mapping of a kind found through discovery (so plurals come from the server, never guessed).
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { CliError } from "../../internal/cli/mod.ts";
import {
  addKubeOptions,
  kubeClientFor,
  type KubeSession,
  withKubeSession,
} from "../../internal/k8s/cli_session.ts";
import type { ApiResource, KubeClient, KubeObject, Manifest } from "../../internal/k8s/mod.ts";
import { discoveryFor } from "../../internal/k8s/discovery.ts";
import { isKubeApiError, NoKindMatchError } from "../../internal/k8s/errors.ts";
import { readManifests } from "../../internal/k8s/manifests.ts";
import { getObject } from "../../internal/k8s/resources.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";
import { API_VERSION, resolveResourceTypes, type ResourceType, UnknownTypeError } from "./resources.ts";

export const OUTPUT_ENV = "EDGECTL_OUTPUT";

/**
 * The global flags (--kubeconfig, --context, -n), accepted before or after the command name. A
 * command's help lists those it declares with useKubeOptions or useNamespaceOption, no others.
 */
export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "EDGECTL", { scoped: true });
}

export { kubeNamespace, useKubeOptions, useNamespaceOption } from "../../internal/k8s/cli_session.ts";

export type Session = KubeSession;

/** A client for the selected kubeconfig and context, for commands that keep it open (web). */
export function kubeClient(command: CommandUnknownOpts): Promise<KubeClient> {
  return kubeClientFor(command, `edgectl/${TOOL_VERSION}`);
}

/** Runs `fn` with a client for the selected kubeconfig and context; closes it afterwards. */
export function withSession<T>(
  command: CommandUnknownOpts,
  fn: (session: Session) => Promise<T>,
): Promise<T> {
  return withKubeSession(command, `edgectl/${TOOL_VERSION}`, fn);
}

/** The types a type word (or comma-separated words) names; an unknown word is a usage error. */
export function resourceTypesArgument(command: CommandUnknownOpts, words: string): ResourceType[] {
  try {
    return resolveResourceTypes(words);
  } catch (err) {
    if (err instanceof UnknownTypeError) command.error(`${err.message}`);
    throw err;
  }
}

/** Exactly one type; `get gw,rt` is a usage error. */
export function resourceTypeArgument(command: CommandUnknownOpts, words: string): ResourceType {
  const types = resourceTypesArgument(command, words);
  if (types.length !== 1) command.error(`${command.name()} takes one resource type, not "${words}"`);
  return types[0]!;
}

/** The API resource serving `kind` in edgeproxy.io/v1alpha1, from discovery. */
export async function apiResource(client: KubeClient, kind: string): Promise<ApiResource> {
  try {
    return await discoveryFor(client).forKind(API_VERSION, kind);
  } catch (err) {
    if (err instanceof NoKindMatchError) {
      throw new CliError(
        `the server does not serve ${kind} (${API_VERSION}): install the CRDs with \`edgectl install-crds\``,
      );
    }
    throw err;
  }
}

/**
 * One object by name. For types that list further kinds (policies: WASMPlugins too), those are
 * tried when the main kind has no such object; the first NotFound is reported when none has it.
 */
export async function getByName(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string,
): Promise<KubeObject> {
  let notFound: unknown;
  for (const kind of [type.kind, ...(type.alsoLists ?? [])]) {
    try {
      return await getObject(client, await apiResource(client, kind), name, { namespace });
    } catch (err) {
      if (kind !== type.kind && err instanceof CliError) continue;
      if (!isKubeApiError(err, "NotFound")) throw err;
      notFound ??= err;
    }
  }
  throw notFound;
}

/**
 * The manifests of `-f` for apply and delete, checked before anything is sent: readManifests
 * already requires apiVersion and kind, and both commands also need each object's name.
 */
export async function readNamedManifests(paths: readonly string[]): Promise<NamedManifest[]> {
  const manifests = await readManifests(paths);
  for (const m of manifests) {
    if (!m.object.metadata?.name) {
      throw new CliError(`${m.source} (document ${m.index}): metadata.name is required`);
    }
  }
  return manifests as NamedManifest[];
}

export interface NamedManifest extends Manifest {
  object: KubeObject & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
}
