/**
 * Rendering without a cluster, as `gitsync-manager render` does once its flags are valid: read the tree
 * (a folder, or a commit fetched into a throwaway cache), render it as the controller would (a chart
 * from its repository too), and redact what it rendered. Loaded only by `render`: the renderers, Git
 * and the registry client are most of the binary.
 *
 * @example
 * const { objects, renderer } = await renderOffline({ repository: ".", path: "deploy", ... }, progress);
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError } from "../../../internal/cli/cli_error.ts";
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { redact, redactObject } from "../redact.ts";
import { ValidationFailure } from "../rollout/groups.ts";
import { type ChartRef, ChartSource } from "../source/helm/chart_source.ts";
import { checkout, fetchGit, GitSourceError } from "../source/git/git_source.ts";
import { isRemote, parseRemoteUrl, RemoteUrlError } from "../source/git/remote_url.ts";
import { readLocalTree } from "../source/local_tree.ts";
import type { Tree } from "../source/tree.ts";
import { RenderFailure } from "./failure.ts";
import { Helm } from "./helm.ts";
import { Kustomize } from "./kustomize.ts";
import { renderSource, type RenderType, renderType } from "./render.ts";

/** What to render: an Application's source as the flags of `gitsync-manager render` give it. */
export interface OfflineSource {
  /** A Git URL or a local folder. */
  repository: string;
  revision: string;
  path: string;
  render?: RenderType;
  valuesFile: string[];
  releaseName?: string;
  namespace: string;
  kubeVersion: string;
  chartRepository?: string;
  chart?: string;
  chartVersion?: string;
}

const RENDERER_NAMES: Record<RenderType, string> = {
  yaml: "plain YAML",
  kustomize: "Kustomize",
  helm: "Helm",
};

/**
 * The redacted objects and the renderer's name; `progress` hears what happens (a fetch, Kustomize's
 * warnings). A failure to read or render is a CliError with its redacted message.
 */
export async function renderOffline(
  o: OfflineSource,
  progress: (line: string) => void,
): Promise<{ objects: KubeObject[]; renderer: string }> {
  const kustomize = new Kustomize({
    warn: (message, path) => progress(`warning: kustomize ${path || "."}: ${message}`),
  });
  const helm = new Helm();
  try {
    const tree = await readRepository(o, progress);
    const source = {
      path: o.path,
      ...(o.render
        ? {
          render: {
            type: o.render,
            ...(o.render === "helm"
              ? {
                helm: {
                  valuesFiles: o.valuesFile,
                  ...(o.chartRepository
                    ? { chart: { repository: o.chartRepository, name: o.chart!, version: o.chartVersion! } }
                    : {}),
                },
              }
              : {}),
          },
        }
        : {}),
    };
    const type = renderType(tree, source);
    const helmContext = {
      namespace: o.namespace,
      applicationName: o.releaseName ?? "release-name",
      kubeVersion: o.kubeVersion,
      // Public charts only: credentials Secrets live in the cluster, which render does not use.
      fetchChart: (ref: ChartRef) => new ChartSource().fetch(o.namespace, ref),
    };
    const objects = (await renderSource({ kustomize, helm }, tree, source, helmContext)).map(redactObject);
    return { objects, renderer: RENDERER_NAMES[type] };
  } catch (err) {
    if (
      err instanceof RenderFailure || err instanceof ValidationFailure || err instanceof GitSourceError ||
      err instanceof RemoteUrlError
    ) {
      throw new CliError(redact(err.message));
    }
    throw err;
  } finally {
    kustomize.close();
    helm.close();
  }
}

/** The tree at the repository: a local folder as it is, or a commit fetched into a throwaway cache. */
async function readRepository(o: OfflineSource, progress: (line: string) => void): Promise<Tree> {
  if (!isRemote(o.repository)) {
    return await readLocalTree(o.repository).catch((err: Error) => {
      throw new CliError(err.message);
    });
  }
  const remote = parseRemoteUrl(o.repository);
  const cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-render-"));
  try {
    progress(`fetching ${redact(remote.url)} ${o.revision}`);
    return await checkout(await fetchGit({ url: remote.url, revision: o.revision, cacheRoot }));
  } finally {
    await rm(cacheRoot, { recursive: true, force: true });
  }
}
