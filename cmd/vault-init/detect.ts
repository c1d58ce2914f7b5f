import type { Command } from "@commander-js/extra-typings";
import { currentHostEnv, locateConfig } from "../../internal/agenthosts/mod.ts";
import { addExamples, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { hostIds, requireSupportedPlatform } from "../../internal/agenthosts/vault_init/install.ts";
import { transportFor, VAULT_HOSTS } from "../../internal/agenthosts/vault_init/hosts.ts";

/** `vault-init detect`: the supported hosts found on this machine; writes nothing. */
export function registerDetect(program: Command, io: Io): void {
  const detect = program
    .command("detect")
    .summary("List the agent hosts found on this machine, without writing anything")
    .description(
      "List the agent hosts vault-init supports that are installed here, the config file install would edit " +
        "and the transport it would use. A host counts as installed when its config file exists, or its app " +
        `directory does (no MCP file yet). Supported hosts (list v1): ${hostIds()}.`,
    )
    .addOption(outputOption())
    .action(async (flags) => {
      const h = currentHostEnv();
      requireSupportedPlatform(h, "detect");
      const hosts = [];
      for (const v of VAULT_HOSTS) {
        const location = await locateConfig(v.host, h);
        if (!location) continue;
        hosts.push({
          host: v.host.id,
          name: v.host.name,
          found: location.found,
          transport: await transportFor(v),
          format: v.host.format,
          path: location.path,
        });
      }
      printResult(io, { hosts }, flags.output, {
        headers: ["host", "name", "found", "transport", "path"],
        rows: (r) => r.hosts.map((x) => [x.host, x.name, x.found, x.transport, x.path]),
        empty: "No supported agent hosts found.",
      });
    });
  addExamples(detect, [
    "# Which agent hosts are installed?\nvault-init detect",
    "# As YAML\nvault-init detect -o yaml",
  ]);
}
