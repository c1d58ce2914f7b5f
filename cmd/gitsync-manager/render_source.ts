/**
 * What `gitsync-manager render` does once its flags are valid: read the tree (a folder, or a commit fetched
 * into a throwaway cache, or a chart from its repository), render it as the controller would, and print
 * it redacted. Loaded only by `render` (the renderers, Git and the registry client are most of the binary).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError, type Io, printResult, printYamlStream } from "../../internal/cli/mod.ts";
import { listDocument } from "../../internal/k8s/mod.ts";
import { redact, redactObject } from "../../controller/gitsync/redact.ts";
import { RenderFailure } from "../../controller/gitsync/render/failure.ts";
import { Helm } from "../../controller/gitsync/render/helm.ts";
import { Kustomize } from "../../controller/gitsync/render/kustomize.ts";
import { ValidationFailure } from "../../controller/gitsync/rollout/groups.ts";
import { type ChartRef, ChartSource } from "../../controller/gitsync/source/helm/chart_source.ts";
import { renderSource, type RenderType, renderType } from "../../controller/gitsync/render/render.ts";
import { checkout, fetchGit, GitSourceError } from "../../controller/gitsync/source/git/git_source.ts";
import { parseRemoteUrl, RemoteUrlError } from "../../controller/gitsync/source/git/remote_url.ts";
import { readLocalTree } from "../../controller/gitsync/source/local_tree.ts";
import type { Tree } from "../../controller/gitsync/source/tree.ts";
import { isUrl, type RenderFlags } from "./render_flags.ts";

const RENDERER_NAMES: Record<RenderType, string> = {
  yaml: "plain YAML",
  kustomize: "Kustomize",
  helm: "Helm",
};

export async function render(io: Io, flags: RenderFlags) {
  const kustomize = new Kustomize({
    warn: (message, path) => io.stderr.write(`warning: kustomize ${path || "."}: ${message}\n`),
  });
  const helm = new Helm();
  try {
    const tree = await readRepository(flags, io);
    const source = {
      path: flags.path,
      ...(flags.render
        ? {
          render: {
            type: flags.render,
            ...(flags.render === "helm"
              ? {
                helm: {
                  valuesFiles: flags.valuesFile,
                  ...(flags.chartRepository
                    ? {
                      chart: {
                        repository: flags.chartRepository,
                        name: flags.chart!,
                        version: flags.chartVersion!,
                      },
                    }
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
      namespace: flags.namespace,
      applicationName: flags.releaseName ?? "release-name",
      kubeVersion: flags.kubeVersion,
      // Public charts only: credentials Secrets live in the cluster, which render does not use.
      fetchChart: (ref: ChartRef) => new ChartSource().fetch(flags.namespace, ref),
    };
    const objects = (await renderSource({ kustomize, helm }, tree, source, helmContext)).map(redactObject);
    io.stderr.write(`rendered ${objects.length} object(s) with ${RENDERER_NAMES[type]}\n`);
    if (flags.output === "yaml") return printYamlStream(io, objects);
    printResult(io, listDocument(objects), flags.output, {
      headers: ["kind", "namespace", "name"],
      rows: (l) => l.items.map((o) => [o.kind, o.metadata?.namespace, o.metadata?.name]),
      empty: "No objects rendered.",
    });
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
async function readRepository(flags: RenderFlags, io: Io): Promise<Tree> {
  if (!isUrl(flags.repository)) {
    return await readLocalTree(flags.repository).catch((err: Error) => {
      throw new CliError(err.message);
    });
  }
  const remote = parseRemoteUrl(flags.repository);
  const cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-render-"));
  try {
    io.stderr.write(`fetching ${redact(remote.url)} ${flags.revision}\n`);
    const fetched = await fetchGit({
      url: remote.url,
      revision: flags.revision,
      cacheRoot,
    });
    return await checkout(fetched);
  } finally {
    await rm(cacheRoot, { recursive: true, force: true });
  }
}

/** A URL (scheme://, or scp-style user@host:path) rather than a folder. */
