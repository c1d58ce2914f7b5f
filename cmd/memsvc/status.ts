import type { Command } from "@commander-js/extra-typings";
import {
  currentHostEnv,
  inspectHosts,
  installStatePath,
  isSupportedPlatform,
  readInstallState,
} from "../../internal/agenthosts/mod.ts";
import {
  addExamples,
  CliError,
  envOption,
  formatTable,
  type Io,
  outputOption,
  printResult,
} from "../../internal/cli/mod.ts";
import { DEFAULT_URL, parseBaseUrl, SERVER_NAME } from "../../internal/agenthosts/memsvc/install.ts";
import { urlAlias } from "./flags.ts";
import { checkHealth } from "../../internal/agenthosts/memsvc/api.ts";

/** `memsvc status`: which hosts are wired to memsvc, and whether the server answers. */
export function registerStatus(program: Command, io: Io): void {
  const status = program
    .command("status")
    .summary("Show which agent hosts use memsvc and whether the server is up")
    .description(
      "Show, for each agent host on this machine, whether it has a memsvc entry: detected (installed, no " +
        "entry), configured, drifted (the entry was edited since `memsvc install` wrote it), missing (the " +
        "recorded entry is gone) or invalid (the config does not parse); and whether the server answers " +
        "GET /health.",
    )
    .addOption(
      envOption(
        "--server <url>",
        "server to check (default: the installed one, else " + DEFAULT_URL + ")",
        "MEMSVC_BASE_URL",
      ),
    )
    .addOption(urlAlias())
    .addOption(outputOption())
    .action(async (flags) => {
      const server = flags.server ?? flags.url;
      const explicitUrl = server === undefined ? undefined : parseBaseUrl(server);
      const h = currentHostEnv();
      if (!isSupportedPlatform(h.platform)) throw new CliError("memsvc status supports macOS and Linux only");
      const state = await readInstallState(installStatePath("memsvc", h));
      const url = explicitUrl ?? state?.server ?? DEFAULT_URL;
      const [reports, health] = await Promise.all([
        inspectHosts(h, SERVER_NAME, state?.hosts),
        checkHealth(url),
      ]);
      const result = {
        server: { url, healthy: health.ok, ...(health.error && { error: health.error }) },
        ...(state && { token: { hash: state.tokenHash, label: state.tokenLabel } }),
        hosts: reports.filter((r) => r.state !== "not-installed").map((r) => ({
          host: r.host.id,
          name: r.host.name,
          state: r.state,
          path: r.path,
          ...(r.error && { error: r.error }),
        })),
      };
      printResult(io, result, flags.output, (r) => {
        const table = r.hosts.length
          ? formatTable(["host", "state", "path"], r.hosts.map((x) => [x.host, x.state, x.path]))
          : "No agent hosts found.\n";
        const health = r.server.healthy ? "healthy" : `not answering (${r.server.error})`;
        return `${table}\nServer ${r.server.url}: ${health}`;
      });
    });
  addExamples(status, [
    "# Which hosts use memsvc, and is the server up?\nmemsvc status",
    "# The same as JSON\nmemsvc status -o json",
  ]);
}
