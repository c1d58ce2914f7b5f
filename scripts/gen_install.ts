/**
 * `deno task gen:install`: writes deploy/gitsync/install.yaml, the `kubectl apply` manifest, from the chart
 * (deploy/gitsync/chart) rendered by the pinned helm binary with its default values in namespace
 * gitsync-system. The chart is the one source: test/gitsync/chart_test.ts fails when the two differ.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ensureBinary } from "./testenv/go_build.ts";
import { HELM } from "./testenv/servers.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CHART = join(ROOT, "deploy", "gitsync", "chart");
export const INSTALL_MANIFEST = join(ROOT, "deploy", "gitsync", "install.yaml");

const HEADER =
  `# gitsync-manager in a cluster, without Helm: apply after \`gitsync-manager install-crds\` (or with the CRDs
# from crds/sync.gitsync.io).
#
#   kubectl apply -f deploy/gitsync/install.yaml
#
# Generated from deploy/gitsync/chart with its default values (\`deno task gen:install\`); change the chart, not
# this file. The webhook's serving certificate comes from cert-manager (Certificate gitsync-webhook, self-signed
# Issuer gitsync-selfsigned); cert-manager also injects the CA into the webhook configuration.
apiVersion: v1
kind: Namespace
metadata:
  name: gitsync-system
`;

/** `helm template` of the chart (no CRDs: install-crds or the crds/ folder carries them). */
export async function renderChart(helm: string, values: string[] = [], namespace = "gitsync-system") {
  const { stdout } = await promisify(execFile)(helm, [
    "template",
    "gitsync",
    CHART,
    "--namespace",
    namespace,
    ...values.flatMap((v) => ["--set", v]),
  ], {
    maxBuffer: 16 << 20,
    env: {
      PATH: process.env.PATH ?? "/usr/bin",
      HOME: "/nonexistent",
      HELM_CACHE_HOME: "/nonexistent",
      HELM_CONFIG_HOME: "/nonexistent",
      HELM_DATA_HOME: "/nonexistent",
    },
  });
  return stdout;
}

/**
 * The install manifest as gen:install writes it; the release passes its image (`image.tag=<version>`,
 * `image.digest=sha256:...`) for the manifest it publishes, pinned to the image it pushed.
 */
export async function installManifest(helm: string, values: string[] = []): Promise<string> {
  return `${HEADER}${await renderChart(helm, values)}`;
}

if (import.meta.main) {
  const helm = await ensureBinary(HELM, (l) => console.error(l));
  await writeFile(INSTALL_MANIFEST, await installManifest(helm.path));
  console.log(`wrote ${INSTALL_MANIFEST}`);
}
