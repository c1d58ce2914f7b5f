/** `edgectl version`: the client's version and the Kubernetes API server's, as v<major>.<minor>.<patch>. */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import type { ServerVersion } from "../../internal/k8s/mod.ts";
import { serverVersion } from "../../internal/k8s/resources.ts";
import { VERSION } from "../../internal/version/version.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";

interface Versions {
  clientVersion: string;
  kubernetesVersion?: string;
}

/** "v1.34.4" from the server's gitVersion ("v1.34.4+k3s1" → "v1.34.4"), else from major/minor. */
export function kubernetesVersion(v: ServerVersion): string {
  const semver = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.gitVersion ?? "");
  if (semver) return `v${semver[1]}.${semver[2]}.${semver[3]}`;
  return `v${v.major.replace(/\D+$/, "")}.${v.minor.replace(/\D+$/, "")}.0`;
}

export function registerVersion(program: Command, io: Io) {
  const command = program
    .command("version")
    .description("Print the client version and the Kubernetes version of the cluster")
    .option("--client", "Print the client version only; do not contact the cluster", false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      const versions: Versions = { clientVersion: VERSION };
      const print = () =>
        printResult(
          io,
          versions,
          flags.output,
          (v) =>
            [
              `Client Version: ${v.clientVersion}`,
              ...(v.kubernetesVersion ? [`Kubernetes Version: ${v.kubernetesVersion}`] : []),
            ]
              .join("\n"),
        );
      if (flags.client) return print();
      try {
        versions.kubernetesVersion = await withSession(
          cmd,
          async ({ client }) => kubernetesVersion(await serverVersion(client)),
        );
      } catch (err) {
        // Like kubectl, the client part is printed in every format when the server cannot be asked,
        // then why on stderr, and the exit code is 1.
        print();
        throw err;
      }
      print();
    });
  useKubeOptions(command);
  addExamples(command, [
    "# Print the client and Kubernetes versions\nedgectl version",
    "# Print the client version only, as JSON\nedgectl version --client -o json",
  ]);
}
