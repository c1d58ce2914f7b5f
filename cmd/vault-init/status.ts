import type { Command } from "@commander-js/extra-typings";
import { currentHostEnv, inspectHost } from "../../internal/agenthosts/mod.ts";
import { addExamples, formatTable, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { requireSupportedPlatform } from "../../internal/agenthosts/vault_init/install.ts";
import { readState, statePath } from "../../internal/agenthosts/vault_init/state.ts";
import { checkHealth } from "../../internal/agenthosts/vault_init/api.ts";
import { SERVER_NAME, VAULT_HOSTS } from "../../internal/agenthosts/vault_init/hosts.ts";

/** `vault-init status`: which hosts are wired, to which server, with which key (its hash only). */
export function registerStatus(program: Command, io: Io): void {
  const status = program
    .command("status")
    .summary("Show the hosts wired to the vault and whether the server answers")
    .description(
      "Show the server and API key vault-init installed (id, prefix and SHA-256, never the key) and, for " +
        "each of the nine hosts on this machine, whether it has a vault entry: detected (installed, no " +
        "entry), configured, drifted (edited since vault-init wrote it), missing (the recorded entry is " +
        "gone) or invalid (the file does not parse); and whether the server answers GET /health.",
    )
    .addOption(outputOption())
    .action(async (flags) => {
      const h = currentHostEnv();
      requireSupportedPlatform(h, "status");
      const state = await readState(statePath(h));
      const [reports, health] = await Promise.all([
        Promise.all(VAULT_HOSTS.map((v) => inspectHost(v.host, h, SERVER_NAME, state?.hosts[v.host.id]))),
        state ? checkHealth(state.server) : Promise.resolve(undefined),
      ]);
      const result = {
        installed: state !== undefined,
        ...(state && {
          server: { url: state.server, healthy: health!.ok, ...(health!.error && { error: health!.error }) },
          apiKey: {
            id: state.apiKey.id,
            name: state.apiKey.name,
            prefix: state.apiKey.prefix,
            sha256: state.apiKey.sha256,
          },
        }),
        hosts: reports.filter((r) => r.state !== "not-installed").map((r) => ({
          host: r.host.id,
          name: r.host.name,
          state: r.state,
          transport: state?.hosts[r.host.id]?.transport,
          path: r.path,
          ...(r.error && { error: r.error }),
        })),
      };
      printResult(io, result, flags.output, (r) => {
        const table = r.hosts.length
          ? formatTable(
            ["host", "state", "transport", "path"],
            r.hosts.map((x) => [x.host, x.state, x.transport ?? "", x.path]),
          )
          : "No agent hosts found.\n";
        if (!r.server) return `${table}\nNot installed: run 'vault-init install'.`;
        const up = r.server.healthy ? "healthy" : `not answering (${r.server.error})`;
        return `${table}\nServer ${r.server.url}: ${up}\nAPI key ${r.apiKey!.name} (${r.apiKey!.prefix}…, ` +
          `sha256 ${r.apiKey!.sha256.slice(0, 12)}…)`;
      });
    });
  addExamples(status, [
    "# Which hosts use the vault, and is the server up?\nvault-init status",
    "# The same as JSON\nvault-init status -o json",
  ]);
}
