/**
 * Picks the renderer for an Application's source (spec.source.render.type): `yaml` (plain manifests),
 * `kustomize`, `helm`, or, when the type is not set, Kustomize if the path holds a kustomization file
 * and plain YAML otherwise, as `kubectl apply -k` users expect.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { ChartSourceError } from "../source/helm/chart_source.ts";
import { RenderFailure } from "./failure.ts";
import type { Helm } from "./helm.ts";
import { chartFromTree, type HelmContext, helmValues } from "./helm_source.ts";
import { hasKustomization, type Kustomize } from "./kustomize.ts";
import { renderPlainYaml } from "./plain_yaml.ts";
import type { HelmSource } from "../api/mod.ts";

export type RenderType = "yaml" | "kustomize" | "helm";

export interface RenderSource {
  path?: string;
  render?: { type?: RenderType; helm?: HelmSource };
}

export interface Renderers {
  kustomize: Kustomize;
  helm?: Helm;
}

export function renderType(tree: ReadonlyMap<string, Uint8Array>, source: RenderSource): RenderType {
  return source.render?.type ?? (hasKustomization(tree, source.path ?? "") ? "kustomize" : "yaml");
}

/** The manifests of `source` in the checked-out tree; failures are RenderFailures. */
export async function renderSource(
  renderers: Renderers,
  tree: ReadonlyMap<string, Uint8Array>,
  source: RenderSource,
  helmContext?: HelmContext,
): Promise<KubeObject[]> {
  const path = source.path ?? "";
  switch (renderType(tree, source)) {
    case "yaml":
      return renderPlainYaml(tree, path);
    case "kustomize":
      return await renderers.kustomize.render(tree, path);
    case "helm": {
      const helm = source.render?.helm ?? {};
      if (!renderers.helm || !helmContext) throw new RenderFailure("render.type helm: no Helm renderer here");
      let chart;
      if (helm.chart) {
        if (!helmContext.fetchChart) {
          throw new RenderFailure(
            `render.helm.chart ${helm.chart.repository}: chart repositories are not available here`,
          );
        }
        try {
          chart = await helmContext.fetchChart(helm.chart);
        } catch (err) {
          if (err instanceof ChartSourceError) throw new RenderFailure(err.message);
          throw err;
        }
      } else {
        chart = chartFromTree(tree, path);
      }
      return await renderers.helm.render({
        chart,
        values: await helmValues(tree, path, helm, helmContext),
        releaseName: helm.releaseName ?? helmContext.applicationName,
        namespace: helmContext.namespace,
        kubeVersion: helmContext.kubeVersion,
        lookup: helmContext.lookup,
      });
    }
  }
}
