import type { Command } from "@commander-js/extra-typings";
import { currentHostEnv, HOSTS, isSupportedPlatform, locateConfig } from "../../internal/agenthosts/mod.ts";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";

/** `memsvc detect`: the agent hosts found on this machine and their config paths. */
export function registerDetect(program: Command, io: Io): void {
  const detect = program
    .command("detect")
    .summary("List the AI agent hosts found on this machine")
    .description(
      "List the AI agent hosts found on this machine and the config file memsvc install would edit. A host " +
        `is found when its config file exists, or its app directory does (no MCP file yet). Known hosts: ${
          HOSTS.map((h) => h.id).join(", ")
        }.`,
    )
    .addOption(outputOption())
    .action(async (flags) => {
      const h = currentHostEnv();
      if (!isSupportedPlatform(h.platform)) throw new CliError("memsvc detect supports macOS and Linux only");
      const hosts = [];
      for (const host of HOSTS) {
        const location = await locateConfig(host, h);
        if (location) {
          hosts.push({
            host: host.id,
            name: host.name,
            found: location.found,
            format: host.format,
            path: location.path,
          });
        }
      }
      printResult(io, { hosts }, flags.output, {
        headers: ["host", "name", "found", "path"],
        rows: (r) => r.hosts.map((x) => [x.host, x.name, x.found, x.path]),
        empty: "No agent hosts found.",
      });
    });
  addExamples(detect, [
    "# Which agent hosts are installed?\nmemsvc detect",
    "# As JSON\nmemsvc detect -o json",
  ]);
}
