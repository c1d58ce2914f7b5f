/**
 * `gitsync-manager render`: what the controller would render for an Application's source, printed with
 * the controller's redaction, without a cluster. For users checking a change before they push, and for
 * tests of the renderers through the binary.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { Option } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, printResult, printYamlStream } from "../../internal/cli/mod.ts";
import { listDocument } from "../../internal/k8s/mod.ts";
import { redact, redactObject } from "../../controller/gitsync/redact.ts";
import { RenderFailure } from "../../controller/gitsync/render/failure.ts";
import { Kustomize } from "../../controller/gitsync/render/kustomize.ts";
import { renderSource, type RenderType, renderType } from "../../controller/gitsync/render/render.ts";
import { checkout, fetchGit, GitSourceError } from "../../controller/gitsync/source/git/git_source.ts";
import { parseRemoteUrl, RemoteUrlError } from "../../controller/gitsync/source/git/remote_url.ts";
import { readLocalTree } from "../../controller/gitsync/source/local_tree.ts";
import type { Tree } from "../../controller/gitsync/source/tree.ts";

const RENDER_TYPES = ["yaml", "kustomize"] as const;

interface RenderFlags {
  repository: string;
  revision: string;
  path: string;
  render?: RenderType;
  output: "yaml" | "json" | "table";
}

export function registerRender(program: Command, io: Io) {
  const command = program
    .command("render")
    .summary("Render an Application's source as the controller would, and print the redacted manifests")
    .description(
      "Render the manifests at --path of a Git repository or a local folder with the controller's own " +
        "renderers: plain YAML, or Kustomize (built in, the same output as `kubectl kustomize`; remote bases " +
        "refused). Without --render, a path holding a kustomization file is rendered with Kustomize, any other " +
        "path as plain YAML, as the controller does when spec.source.render.type is not set. Secret values " +
        "and credentials are redacted as in plans. Nothing is sent to a cluster.\n\n" +
        "--repository takes the https://, http:// or git:// URL of a public Git repository, or a local folder (its " +
        "working tree as it is, not a commit; .git is skipped): for a private repository, clone it and pass " +
        "the folder. Symlinks that leave the repository refuse the render, as in the controller.",
    )
    .requiredOption("--repository <dir|url>", "Git URL (https://, http://, git://) or local folder")
    .option("--revision <ref>", "Branch, tag or commit SHA when --repository is a URL", "main")
    .option("--path <path>", "Folder inside the repository (spec.source.path)", ".")
    .addOption(
      new Option("--render <type>", "Renderer (spec.source.render.type); default: detected").choices(
        RENDER_TYPES,
      ),
    )
    .addOption(
      new Option("-o, --output <format>", "yaml (a document per object), json (a List) or table")
        .choices(["yaml", "json", "table"] as const)
        .default("yaml" as const),
    )
    .action(async (flags, cmd) => {
      // Validate before any I/O: a bad URL or a missing folder is a usage error.
      const repository = flags.repository;
      if (isUrl(repository)) {
        try {
          const { transport } = parseRemoteUrl(repository);
          if (transport === "ssh") {
            cmd.error(
              `--repository: ${transport} needs a key and known_hosts, which render does not take: clone it and pass the folder`,
            );
          }
        } catch (err) {
          if (err instanceof RemoteUrlError) cmd.error(`--repository: ${redact(err.message)}`);
          throw err;
        }
      } else if (!(await stat(repository).catch(() => undefined))?.isDirectory()) {
        cmd.error(`--repository ${repository}: no such folder`);
      }
      await render(io, flags as RenderFlags);
    });
  addExamples(command, [
    "# Render a folder of your working copy (Kustomize when it holds a kustomization.yaml)\n" +
    "gitsync-manager render --repository . --path deploy/overlays/prod",
    "# Render a branch of a remote repository, listing the objects only\n" +
    "gitsync-manager render --repository https://github.com/org/app.git --revision release --path k8s -o table",
    "# Force plain YAML even where a kustomization file exists\n" +
    "gitsync-manager render --repository . --path deploy --render yaml",
  ]);
}

async function render(io: Io, flags: RenderFlags) {
  const kustomize = new Kustomize({
    warn: (message, path) => io.stderr.write(`warning: kustomize ${path || "."}: ${message}\n`),
  });
  try {
    const tree = await readRepository(flags, io);
    const source = { path: flags.path, ...(flags.render ? { render: { type: flags.render } } : {}) };
    const type = renderType(tree, source);
    const objects = (await renderSource({ kustomize }, tree, source)).map(redactObject);
    io.stderr.write(
      `rendered ${objects.length} object(s) with ${type === "yaml" ? "plain YAML" : "Kustomize"}\n`,
    );
    if (flags.output === "yaml") return printYamlStream(io, objects);
    printResult(io, listDocument(objects), flags.output, {
      headers: ["kind", "namespace", "name"],
      rows: (l) => l.items.map((o) => [o.kind, o.metadata?.namespace, o.metadata?.name]),
      empty: "No objects rendered.",
    });
  } catch (err) {
    if (err instanceof RenderFailure || err instanceof GitSourceError || err instanceof RemoteUrlError) {
      throw new CliError(redact(err.message));
    }
    throw err;
  } finally {
    kustomize.close();
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
      cacheKey: "render",
    });
    return await checkout(fetched);
  } finally {
    await rm(cacheRoot, { recursive: true, force: true });
  }
}

/** A URL (scheme://, or scp-style user@host:path) rather than a folder. */
function isUrl(repository: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[^/\s]+@[^/\s]+:/.test(repository);
}
