/**
 * A small Kubernetes client for our CLIs and controllers (edgectl, gitsync): kubeconfig loading as
 * kubectl does it (contexts, tokens, client certificates, exec credential plugins, in-cluster),
 * a node:https client that works in Bun-compiled binaries and under Deno, discovery with kubectl's
 * type-word resolution, object reads and writes (server-side and client-side apply), manifest
 * reading for `-f`, and kubectl's table conventions.
 *
 * @example
 * import { applyObject, discoveryFor, formatServerTable, getTable, KubeClient, objectRef, readManifests } from "../../internal/k8s/mod.ts";
 *
 * const client = KubeClient.fromKubeconfig({ path: flags.kubeconfig, context: flags.context, namespace: flags.namespace });
 * try {
 *   const res = await discoveryFor(client).resolve("gw");           // UnknownResourceTypeError suggests a near name
 *   process.stdout.write(formatServerTable(await getTable(client, res, {})));
 *   for (const m of await readManifests(["-"])) {
 *     const r = await applyObject(client, m.object, { fieldManager: "edgectl", serverSide: true });
 *     console.log(`${objectRef(r.resource, m.object.metadata!.name!)} ${r.action}`);
 *   }
 * } finally {
 *   client.close();
 * }
 *
 * Errors are typed and carry one printable line: KubeconfigError (missing file, unknown context),
 * KubeConnectionError ("unable to connect to the server at <url>: <cause>"), KubeApiError
 * ("Error from server (Forbidden): ..." with status, reason, details), UnknownResourceTypeError,
 * NoKindMatchError, ManifestError, ExecPluginError.
 */
export {
  type ClusterConfig,
  type ExecConfig,
  inClusterConfig,
  kubeconfigFiles,
  loadKubeconfig,
  type LoadKubeconfigOptions,
  type ResolvedKubeconfig,
  type UserConfig,
} from "./kubeconfig.ts";
export {
  ExecCredentialProvider,
  type ExecCredentialStatus,
  parseExecCredential,
  runExecPlugin,
} from "./exec_credential.ts";
export {
  type Impersonation,
  KubeClient,
  type KubeClientOptions,
  type KubeRequest,
  type KubeResponse,
  type QueryValue,
  type WatchEvent,
} from "./client.ts";
export {
  type ApiResource,
  discoverResources,
  Discovery,
  discoveryFor,
  editDistance,
  groupVersion,
  qualifiedResource,
  RestMapper,
} from "./discovery.ts";
export {
  type ApplyAction,
  applyObject,
  type ApplyOptions,
  type ApplyResult,
  clientSideApply,
  type Condition,
  createObject,
  deleteObject,
  type DeleteOptions,
  getObject,
  getTable,
  type KubeList,
  type KubeObject,
  LAST_APPLIED_ANNOTATION,
  listEvents,
  listObjects,
  type ListOptions,
  type MetaTable,
  type ObjectMeta,
  objectRef,
  patchObject,
  patchStatusLocked,
  type PatchType,
  replaceObject,
  replacingMergePatch,
  resourcePath,
  serverSideApply,
  type ServerVersion,
  serverVersion,
  threeWayMergePatch,
  type WriteOptions,
} from "./resources.ts";
export {
  type Cell,
  formatAge,
  formatServerTable,
  formatTable,
  humanDuration,
  listDocument,
  type ServerTableOptions,
  serverTableRows,
  withoutManagedFields,
} from "./table.ts";
export { type Manifest, parseManifests, readManifests, type ReadManifestsOptions } from "./manifests.ts";
export {
  ExecPluginError,
  isKubeApiError,
  KubeApiError,
  KubeconfigError,
  type KubeconfigErrorCode,
  KubeConnectionError,
  type KubeStatus,
  ManifestError,
  NoKindMatchError,
  UnknownResourceTypeError,
} from "./errors.ts";
export {
  Informer,
  type InformerEvent,
  type InformerOptions,
  objectKey,
  withoutFieldBookkeeping,
} from "./informer.ts";
export { type LeaderElectionOptions, runLeaderElection } from "./leader_election.ts";
export { type BackoffOptions, type ReconcileResult, runWorkers, WorkQueue } from "./workqueue.ts";
export { CrdsNotEstablishedError, installCrds, type InstalledCrd, readCrds } from "./crds.ts";
export { EventRecorder, type EventRecorderOptions } from "./event_recorder.ts";
export { kindPlural } from "./kind_plural.ts";
export { sleep } from "../async/sleep.ts";
