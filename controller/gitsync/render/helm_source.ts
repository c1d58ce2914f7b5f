/**
 * An Application's Helm source (spec.source.render.helm, seed section 2) turned into a render: the
 * chart (the folder at source.path in Git, or a chart from a repository through `fetchChart`), and its
 * values in the seed's merge order, later wins: chart defaults < valuesFiles (in Git, inside the
 * checkout) < each valuesFrom in order (ConfigMap or Secret, read as the Application's service account)
 * < values.
 */
import { posix } from "node:path";
import { KubeApiError, type KubeClient } from "../../../internal/k8s/mod.ts";
import { RenderFailure } from "./failure.ts";
import type { Lookup } from "./helm.ts";
import type { HelmChartRef, HelmSource, ValuesFromRef } from "../api/mod.ts";

/** What a Helm render needs beyond the tree: who the release is, and the cluster-side reads. */
export interface HelmContext {
  namespace: string;
  /** The Application's name: the release name unless render.helm.releaseName sets one. */
  applicationName: string;
  /** The YAML of a valuesFrom entry; undefined when the object or key does not exist. */
  readValuesFrom?(ref: ValuesFromRef): Promise<string | undefined>;
  /** Serves Helm's `lookup`; without it `lookup` finds nothing. */
  lookup?: Lookup;
  /** A chart from a repository, as its files by path relative to the chart root. */
  fetchChart?(ref: HelmChartRef): Promise<Map<string, Uint8Array>>;
  kubeVersion?: string;
}

const decoder = new TextDecoder();

/** The chart folder's files at `path` of the tree, relative to the chart root. */
export function chartFromTree(tree: ReadonlyMap<string, Uint8Array>, path: string): Map<string, Uint8Array> {
  const base = normalize(path);
  const prefix = base ? `${base}/` : "";
  const chart = new Map<string, Uint8Array>();
  for (const [name, bytes] of tree) {
    if (name.startsWith(prefix)) chart.set(name.slice(prefix.length), bytes);
  }
  return chart;
}

function normalize(path: string): string {
  const p = posix.normalize(`/${path}`).slice(1).replace(/\/+$/, "");
  return p === "." ? "" : p;
}

/** A values file's place in the tree; one outside the checkout is refused. */
export function valuesFilePath(path: string, file: string): string {
  if (file.startsWith("/")) throw new RenderFailure(`valuesFiles ${file}: must lie inside the checkout`);
  const joined = posix.normalize(posix.join(normalize(path) || ".", file));
  if (joined === ".." || joined.startsWith("../")) {
    throw new RenderFailure(`valuesFiles ${file}: must lie inside the checkout`);
  }
  return joined.replace(/^\.\//, "");
}

/** The values documents of the source, in merge order (chart defaults come from the chart itself). */
export async function helmValues(
  tree: ReadonlyMap<string, Uint8Array>,
  path: string,
  helm: HelmSource,
  context: HelmContext,
): Promise<string[]> {
  const docs: string[] = [];
  for (const file of helm.valuesFiles ?? []) {
    const bytes = tree.get(valuesFilePath(path, file));
    if (!bytes) throw new RenderFailure(`valuesFiles ${file}: no such file in the checkout`);
    docs.push(decoder.decode(bytes));
  }
  for (const ref of helm.valuesFrom ?? []) {
    if (!context.readValuesFrom) {
      throw new RenderFailure(`valuesFrom ${ref.kind}/${ref.name}: no cluster to read it from`);
    }
    const yaml = await context.readValuesFrom(ref);
    if (yaml === undefined) {
      if (ref.optional) continue;
      throw new RenderFailure(
        `valuesFrom ${ref.kind}/${ref.name}: not found (or it has no key ${ref.key ?? "values.yaml"})`,
      );
    }
    docs.push(yaml);
  }
  // JSON is YAML: the inline values go last, as given.
  if (helm.values) docs.push(JSON.stringify(helm.values));
  return docs;
}

/**
 * valuesFrom read with `client` (the Application's impersonated client): an uncached get of the
 * ConfigMap or Secret; a missing object is undefined, a refused read a RenderFailure.
 */
export function valuesFromReader(client: KubeClient, namespace: string) {
  return async (ref: ValuesFromRef): Promise<string | undefined> => {
    const resource = ref.kind === "Secret" ? "secrets" : "configmaps";
    const key = ref.key ?? "values.yaml";
    let obj: { data?: Record<string, string>; binaryData?: Record<string, string> };
    try {
      obj = await client.request({ path: `/api/v1/namespaces/${namespace}/${resource}/${ref.name}` });
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      if (err instanceof KubeApiError) {
        throw new RenderFailure(`valuesFrom ${ref.kind}/${ref.name}: ${err.serverMessage}`);
      }
      throw err;
    }
    if (ref.kind === "Secret") {
      const value = obj.data?.[key];
      return value === undefined
        ? undefined
        : decoder.decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
    }
    return obj.data?.[key] ??
      (obj.binaryData?.[key] === undefined
        ? undefined
        : decoder.decode(Uint8Array.from(atob(obj.binaryData[key]), (c) => c.charCodeAt(0))));
  };
}

/** Helm's `lookup` served by `client` (the Application's impersonated client): GETs only. */
export function kubeLookup(client: KubeClient): Lookup {
  return async (path) => {
    const [p = "", query] = path.split("?", 2);
    const params = Object.fromEntries(new URLSearchParams(query ?? ""));
    try {
      const res = await client.requestRaw({ method: "GET", path: p, query: params });
      return { status: res.status, body: res.body };
    } catch (err) {
      if (err instanceof KubeApiError) {
        return {
          status: err.status,
          body: JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            message: err.serverMessage,
          }),
        };
      }
      throw err;
    }
  };
}
