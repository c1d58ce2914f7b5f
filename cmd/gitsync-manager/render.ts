/**
 * `gitsync-manager render`: what the controller would render for an Application's source, printed with
 * the controller's redaction, without a cluster. For users checking a change before they push, and for
 * tests of the renderers through the binary.
 */
import { stat } from "node:fs/promises";
import type { Command } from "@commander-js/extra-typings";
import { Option } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult, printYamlStream } from "../../internal/cli/mod.ts";
import { listDocument } from "../../internal/k8s/table.ts";
import { redact } from "../../controller/gitsync/redact.ts";
import { DEFAULT_KUBE_VERSION } from "../../controller/gitsync/render/kube_version.ts";
import { isRemote, parseRemoteUrl, RemoteUrlError } from "../../controller/gitsync/source/git/remote_url.ts";

const RENDER_TYPES = ["yaml", "kustomize", "helm"] as const;

export function registerRender(program: Command, io: Io) {
  const command = program
    .command("render")
    .summary("Render an Application's source as the controller would, and print the redacted manifests")
    .description(
      "Render the manifests at --path of a Git repository or a local folder with the controller's own " +
        "renderers: plain YAML, Kustomize (built in, the same output as `kubectl kustomize`; remote bases " +
        "refused), or Helm with --render helm (Helm v3.16.4's engine built in, the same manifests as " +
        "`helm template --include-crds --skip-tests`; dependencies must be vendored in charts/; Helm hooks " +
        "shown as gitsync hooks). Without --render, a path holding a kustomization file is rendered with " +
        "Kustomize, any other path as plain YAML, as the controller does when spec.source.render.type is not " +
        "set. Secret values and credentials are redacted as in plans. Nothing is sent to a cluster (Helm's " +
        "lookup finds nothing, as in `helm template`).\n\n" +
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
    .option(
      "--values-file <path>",
      "Helm values file relative to --path (spec.source.render.helm.valuesFiles); repeatable, later wins",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--release-name <name>",
      "Helm release name (the Application's name in the controller)",
      "release-name",
    )
    .option("--namespace <ns>", "Helm release namespace (the Application's namespace)", "default")
    .option(
      "--chart-repository <url>",
      "Helm chart repository, oci:// or https:// (spec.source.render.helm.chart)",
    )
    .option("--chart <name>", "Chart name in --chart-repository")
    .option("--chart-version <version>", "Exact chart version (SemVer; ranges refused)")
    .option("--kube-version <version>", "Kubernetes version Helm templates see", DEFAULT_KUBE_VERSION)
    .addOption(
      new Option("-o, --output <format>", "yaml (a document per object), json (a List) or table")
        .choices(["yaml", "json", "table"] as const)
        .default("yaml" as const),
    )
    .action(async (flags, cmd) => {
      // Validate before any I/O: a bad URL or a missing folder is a usage error.
      const repository = flags.repository;
      if (isRemote(repository)) {
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
      }
      if (flags.render !== "helm" && (flags.valuesFile.length > 0 || flags.chartRepository || flags.chart)) {
        cmd.error("--values-file and --chart* are for --render helm");
      }
      const chartFlags = [flags.chartRepository, flags.chart, flags.chartVersion].filter(Boolean).length;
      if (chartFlags !== 0 && chartFlags !== 3) {
        cmd.error("--chart-repository, --chart and --chart-version go together");
      }
      if (flags.chartRepository && !/^(oci|https):\/\/\S+$/.test(flags.chartRepository)) {
        cmd.error("--chart-repository: an oci:// or https:// URL");
      }
      if (flags.chartVersion) {
        const { exactVersion } = await import("../../controller/gitsync/source/helm/chart_source.ts");
        try {
          exactVersion(flags.chartVersion);
        } catch (err) {
          cmd.error(`--chart-version: ${(err as Error).message}`);
        }
      }
      if (!isRemote(repository) && !(await stat(repository).catch(() => undefined))?.isDirectory()) {
        cmd.error(`--repository ${repository}: no such folder`);
      }
      // The renderers, Git and the chart client load here: --help and the other commands never need them.
      const { renderOffline } = await import("../../controller/gitsync/render/offline.ts");
      const { objects, renderer } = await renderOffline(flags, (line) => io.stderr.write(`${line}\n`));
      io.stderr.write(`rendered ${objects.length} object(s) with ${renderer}\n`);
      if (flags.output === "yaml") return printYamlStream(io, objects);
      printResult(io, listDocument(objects), flags.output, {
        headers: ["kind", "namespace", "name"],
        rows: (l) => l.items.map((o) => [o.kind, o.metadata?.namespace, o.metadata?.name]),
        empty: "No objects rendered.",
      });
    });
  addExamples(command, [
    "# Render a folder of your working copy (Kustomize when it holds a kustomization.yaml)\n" +
    "gitsync-manager render --repository . --path deploy/overlays/prod",
    "# Render a branch of a remote repository, listing the objects only\n" +
    "gitsync-manager render --repository https://github.com/org/app.git --revision release --path k8s -o table",
    "# Render a Helm chart kept in Git with a values file, as the Application shop in namespace team\n" +
    "gitsync-manager render --repository . --path charts/shop --render helm --values-file ../values-prod.yaml \\\n" +
    "  --release-name shop --namespace team",
    "# Render a public chart from an OCI registry with a values file from the working copy\n" +
    "gitsync-manager render --repository . --render helm --chart-repository oci://ghcr.io/org/charts \\\n" +
    "  --chart shop --chart-version 1.4.2 --values-file deploy/shop-values.yaml",
    "# Force plain YAML even where a kustomization file exists\n" +
    "gitsync-manager render --repository . --path deploy --render yaml",
  ]);
}
