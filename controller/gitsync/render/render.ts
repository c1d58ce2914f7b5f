/**
 * Picks the renderer for an Application's source (spec.source.render.type): `yaml` (plain manifests),
 * `kustomize`, or, when the type is not set, Kustomize if the path holds a kustomization file and plain
 * YAML otherwise, as `kubectl apply -k` users expect.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { RenderFailure } from "./failure.ts";
import { hasKustomization, type Kustomize } from "./kustomize.ts";
import { renderPlainYaml } from "./plain_yaml.ts";

export type RenderType = "yaml" | "kustomize" | "helm";

export interface RenderSource {
  path?: string;
  render?: { type?: RenderType };
}

export interface Renderers {
  kustomize: Kustomize;
}

export function renderType(tree: ReadonlyMap<string, Uint8Array>, source: RenderSource): RenderType {
  return source.render?.type ?? (hasKustomization(tree, source.path ?? "") ? "kustomize" : "yaml");
}

/** The manifests of `source` in the checked-out tree; failures are RenderFailures. */
export async function renderSource(
  renderers: Renderers,
  tree: ReadonlyMap<string, Uint8Array>,
  source: RenderSource,
): Promise<KubeObject[]> {
  const path = source.path ?? "";
  switch (renderType(tree, source)) {
    case "yaml":
      return renderPlainYaml(tree, path);
    case "kustomize":
      return await renderers.kustomize.render(tree, path);
    case "helm":
      throw new RenderFailure("render.type helm: this version of gitsync-manager has no Helm renderer yet");
  }
}
