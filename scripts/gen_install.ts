/**
 * `deno task gen:install`: writes deploy/gitsync/install.yaml, the `kubectl apply` manifest, from the chart
 * (deploy/gitsync/chart) rendered by the pinned helm binary with its default values in namespace
 * gitsync-system, and deploy/gitsync/roles.yaml, the people's roles (gitsync-viewer, gitsync-approver) alone.
 * The chart is the one source: test/gitsync/chart_test.ts fails when they differ.
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
export const ROLES_MANIFEST = join(ROOT, "deploy", "gitsync", "roles.yaml");

const HEADER =
  `# gitsync-manager in a cluster, without Helm: apply after \`gitsync-manager install-crds\` (or with the CRDs
# from crds/sync.gitsync.io).
#
#   kubectl apply -f deploy/gitsync/install.yaml
#
# Generated from deploy/gitsync/chart with its default values (\`deno task gen:install\`); change the chart, not
# this file. Nothing else is needed (no cert-manager): the manager issues its webhook's CA and certificate into
# the Secret gitsync-webhook-cert, renews them, and writes the CA into the webhook configuration's caBundle.
# Until a manager replica serves the webhook, Applications cannot be created or changed (failurePolicy Fail).
apiVersion: v1
kind: Namespace
metadata:
  name: gitsync-system
`;

/** `helm template` of the chart (no CRDs: install-crds or the crds/ folder carries them). */
export async function renderChart(
  helm: string,
  values: string[] = [],
  namespace = "gitsync-system",
  only: string[] = [],
) {
  const { stdout } = await promisify(execFile)(helm, [
    "template",
    "gitsync",
    CHART,
    "--namespace",
    namespace,
    ...values.flatMap((v) => ["--set", v]),
    ...only.flatMap((t) => ["--show-only", t]),
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

const ROLES_HEADER =
  `# The ClusterRoles for people and pipelines, also part of install.yaml: gitsync-viewer (read) and
# gitsync-approver (read, approve, suspend, resume, rollback). Bind them per namespace with RoleBindings
# (examples/gitsync/people.yaml). Generated from deploy/gitsync/chart (\`deno task gen:install\`).
`;

/** deploy/gitsync/roles.yaml as gen:install writes it: the chart's roles.yaml alone. */
export async function rolesManifest(helm: string): Promise<string> {
  return `${ROLES_HEADER}${await renderChart(helm, [], "gitsync-system", ["templates/roles.yaml"])}`;
}

if (import.meta.main) {
  const helm = await ensureBinary(HELM, (l) => console.error(l));
  await writeFile(INSTALL_MANIFEST, await installManifest(helm.path));
  await writeFile(ROLES_MANIFEST, await rolesManifest(helm.path));
  console.log(`wrote ${INSTALL_MANIFEST} and ${ROLES_MANIFEST}`);
}
