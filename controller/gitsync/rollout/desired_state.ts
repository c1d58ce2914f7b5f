/**
 * What a Revision applies: its commit's files (decrypted when the Application says so), rendered in
 * process, labelled as the Application's managed objects and ordered into rollout groups. A failure here
 * (render, decryption, validation) is the Revision's.
 */
import type { KubeClient, KubeObject } from "../../../internal/k8s/mod.ts";
import { RenderFailure } from "../render/failure.ts";
import { kubeLookup, valuesFromReader } from "../render/helm_source.ts";
import { type Renderers, renderSource } from "../render/render.ts";
import { decryptTree, readDecryptionKeys } from "../sops/decrypt_tree.ts";
import { readChartCredentials } from "../source/helm/chart_credentials.ts";
import type { ChartSource } from "../source/helm/chart_source.ts";
import { inSpan } from "../tracing.ts";
import { type Group, rolloutGroups } from "./groups.ts";
import { type Application, APPLICATION_LABEL, type Revision } from "../api/mod.ts";

export interface DesiredStateSources {
  /** The manager's own client: decryption keys and chart credentials (Secrets read by reference). */
  client: KubeClient;
  /** The files of a Repository's commit (from the source cache). */
  source: (namespace: string, repository: string, commit: string) => Promise<ReadonlyMap<string, Uint8Array>>;
  renderers: Renderers;
  charts?: ChartSource;
  kubeVersion?: () => Promise<string | undefined>;
}

/** Render, label as managed, order into groups; `sa` is the Application's service account. */
export async function desiredState(
  o: DesiredStateSources,
  rev: Revision,
  app: Application,
  sa: KubeClient,
): Promise<{ objects: KubeObject[]; groups: Group[] }> {
  const ns = rev.metadata!.namespace!;
  const tree = await o.source(ns, app.spec.source.repositoryRef.name, rev.spec.sourceRevision);
  const decryption = app.spec.decryption;
  const plain = await decryptTree(tree, decryption, () => readDecryptionKeys(o.client, ns, decryption!));
  const rendered = await inSpan("render", {
    "gitsync.application": `${ns}/${app.metadata!.name}`,
    "gitsync.source.revision": rev.spec.sourceRevision,
    "gitsync.source.path": app.spec.source.path ?? "",
  }, async () =>
    renderSource(o.renderers, plain, app.spec.source, {
      namespace: ns,
      applicationName: app.metadata!.name!,
      // Helm's valuesFrom and lookup read as the Application's service account.
      readValuesFrom: valuesFromReader(sa, ns),
      lookup: kubeLookup(sa),
      kubeVersion: app.spec.source.render?.type === "helm" ? await o.kubeVersion?.() : undefined,
      fetchChart: async (chart) => {
        if (!o.charts) throw new RenderFailure("chart repositories are not configured");
        return await o.charts.fetch(ns, chart, await readChartCredentials(o.client, ns, chart));
      },
    }));
  const objects = rendered.map((obj) => ({
    ...obj,
    metadata: {
      ...obj.metadata,
      labels: { ...obj.metadata?.labels, [APPLICATION_LABEL]: app.metadata!.name! },
    },
  }));
  const groups = rolloutGroups(objects);
  // What is applied: skipped objects left out, control annotations from Git stripped.
  return { objects: groups.flatMap((g) => ("objects" in g ? g.objects : [])), groups };
}
