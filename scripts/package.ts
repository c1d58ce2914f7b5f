/**
 * `deno task package [--version <semver>] [tool...]`: the npm packages of vault-init and vault-mcp,
 * runnable with `npx` on Node 20. Each is one esbuild bundle (every dependency inside, so the package
 * has no runtime dependencies) with a bin entry, packed with `npm pack` into dist/npm/<tool>-<version>.tgz.
 * The release workflow (.github/workflows/release-cli.yml) passes the version of its cli-v<semver> tag.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "npm");

/** The packages, the shim first: the installer's stdio entries run it with npx. */
export const NPM_TOOLS = {
  "vault-mcp": {
    description: "stdio-to-HTTP MCP bridge that connects stdio-only AI agent hosts to a vault's /api/mcp",
    usage: "VAULT_URL=https://vault.example.com VAULT_TOKEN=vault_... npx -y vault-mcp",
  },
  "vault-init": {
    description: "Wires AI agent hosts (Claude Code, Cursor, Codex, Claude Desktop, ...) to a vault over MCP",
    usage: "npx -y vault-init --server https://vault.example.com",
  },
} as const;
export type NpmTool = keyof typeof NPM_TOOLS;

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Bundles and packs one tool; returns the tarball's path. */
export async function packageTool(tool: NpmTool, version: string, out = OUT): Promise<string> {
  const dir = join(out, tool);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
  const bin = join(dir, "bin", `${tool}.mjs`);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [`cmd/${tool}/main.ts`],
    outfile: bin,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // ES module builds first: jsonc-parser's `main` is a UMD build whose dynamic requires esbuild cannot follow.
    mainFields: ["module", "main"],
    // CommonJS dependencies (commander) require Node built-ins; an ES module has no `require` of its own.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\n" +
        "const require = __createRequire(import.meta.url);",
    },
    legalComments: "eof",
    logLevel: "warning",
    plugins: [versionPlugin(version)],
  });
  chmodSync(bin, 0o755);
  const { description, usage } = NPM_TOOLS[tool];
  writeFileSync(
    join(dir, "package.json"),
    `${
      JSON.stringify(
        {
          name: tool,
          version,
          description,
          type: "module",
          bin: { [tool]: `bin/${tool}.mjs` },
          files: ["bin", "README.md", "LICENSE"],
          engines: { node: ">=20" },
          license: "Apache-2.0",
          keywords: ["mcp", "vault", "model-context-protocol"],
        },
        null,
        2,
      )
    }\n`,
  );
  writeFileSync(
    join(dir, "README.md"),
    `# ${tool}\n\n${description}.\n\n    ${usage}\n\nRun \`${tool} --help\` for commands and examples. ` +
      "Documentation: docs/vault-init.md in the source repository.\n",
  );
  copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
  }).trim().split("\n").at(-1)!;
  return join(out, name);
}

/** The binary reports the package's version, not the monorepo's: package.json is swapped at bundle time. */
function versionPlugin(version: string): esbuild.Plugin {
  const rootPackage = join(ROOT, "package.json");
  return {
    name: "package-version",
    setup(build) {
      build.onLoad(
        { filter: /package\.json$/ },
        (args) =>
          args.path === rootPackage ? { contents: JSON.stringify({ version }), loader: "json" } : undefined,
      );
    },
  };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--version");
  const version = at >= 0
    ? args.splice(at, 2)[1]
    : JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
  if (!version || !SEMVER.test(version)) {
    console.error(`package: --version needs a semver, not '${version}'`);
    process.exit(2);
  }
  const tools = (args.length ? args : Object.keys(NPM_TOOLS)) as NpmTool[];
  for (const tool of tools) {
    if (!(tool in NPM_TOOLS)) {
      console.error(`package: no npm package for '${tool}' (known: ${Object.keys(NPM_TOOLS).join(", ")})`);
      process.exit(2);
    }
  }
  for (const tool of tools) console.log(`package: ${await packageTool(tool, version)}`);
  await esbuild.stop();
}
