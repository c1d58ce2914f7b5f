/**
 * The npm packages of vault-init and vault-mcp (scripts/package.ts): packed with `npm pack`, installed
 * offline into a temporary prefix, and run with Node 20 through npm's bin symlinks, as `npx` runs them.
 * vault-mcp serves the MCP SDK's stdio client against an SDK Streamable HTTP server.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { after, before, describe, it } from "node:test";
import { startTestUpstream, type TestUpstream } from "../../internal/mcp/testing.ts";
import { packageTool } from "../../scripts/package.ts";
import { Client, StdioClientTransport } from "../harness/mcp_client.ts";

const run = promisify(execFile);
const VERSION = "0.0.0-test.1";
const TOKEN = "vault_npm-test-key-0123456789abcdefghijklmnopqrstuv";

describe("npm packages", () => {
  let dir: string;
  let prefix: string;
  let upstream: TestUpstream;
  const node = (bin: string, args: string[], env: Record<string, string> = {}) =>
    run(join(prefix, "bin", bin), args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), ...env },
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "vault-npm-"));
    prefix = join(dir, "prefix");
    await mkdir(join(dir, "home", ".cursor"), { recursive: true });
    const tarballs = [
      await packageTool("vault-mcp", VERSION, join(dir, "out")),
      await packageTool("vault-init", VERSION, join(dir, "out")),
    ];
    await run("npm", [
      "install",
      "--offline",
      "--no-audit",
      "--no-fund",
      "-g",
      "--prefix",
      prefix,
      ...tarballs,
    ]);
    upstream = startTestUpstream({ token: TOKEN });
  });
  after(async () => {
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("have bin entries, no runtime dependencies and only their bundle in the tarball", async () => {
    for (const tool of ["vault-init", "vault-mcp"]) {
      const pkg = JSON.parse(
        await readFile(join(prefix, "lib", "node_modules", tool, "package.json"), "utf8"),
      );
      assert.equal(pkg.version, VERSION);
      assert.deepEqual(pkg.bin, { [tool]: `bin/${tool}.mjs` });
      assert.equal(pkg.dependencies, undefined);
      assert.equal(pkg.engines.node, ">=20");
      const { stdout } = await run("tar", ["-tzf", join(dir, "out", `${tool}-${VERSION}.tgz`)]);
      assert.equal(pkg.license, "Apache-2.0");
      assert.deepEqual(stdout.trim().split("\n").sort(), [
        "package/LICENSE",
        "package/README.md",
        `package/bin/${tool}.mjs`,
        "package/package.json",
      ]);
    }
  });

  it("are released on cli-v<semver> tags, the shim before the installer", async () => {
    const workflow = parseYaml(
      await readFile(
        fileURLToPath(new URL("../../.github/workflows/release-cli.yml", import.meta.url)),
        "utf8",
      ),
    );
    assert.deepEqual(workflow.on.push.tags, ["cli-v*"]);
    const publishes = (workflow.jobs.publish.steps as { run?: string }[])
      .map((s) => /npm publish "dist\/npm\/(vault-[a-z]+)-/.exec(s.run ?? "")?.[1])
      .filter(Boolean);
    assert.deepEqual(publishes, ["vault-mcp", "vault-init"]);
    // Every release (v<semver>) publishes them too, at its version, through the same workflow.
    const release = parseYaml(
      await readFile(fileURLToPath(new URL("../../.github/workflows/release.yml", import.meta.url)), "utf8"),
    );
    assert.equal(release.jobs.npm.uses, "./.github/workflows/release-cli.yml");
    assert.equal(release.jobs.npm.with.version, "${{ needs.release.outputs.version }}");
    assert.ok(workflow.on.workflow_call.inputs.version.required);
  });

  it("vault-init runs under Node through the bin symlink and reports the package version", async () => {
    assert.equal((await node("vault-init", ["--version"])).stdout.trim(), `v${VERSION}`);
    const detect = JSON.parse((await node("vault-init", ["detect", "-o", "json"])).stdout);
    assert.deepEqual(detect.hosts.map((h: { host: string }) => h.host), ["cursor"]);
  });

  it("vault-mcp bridges the SDK's stdio client under Node", async () => {
    const client = new Client({ name: "npm-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: join(prefix, "bin", "vault-mcp"),
        args: [],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", VAULT_URL: upstream.baseUrl, VAULT_TOKEN: TOKEN },
        stderr: "pipe",
      }),
    );
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "from node" } });
      assert.equal((result as { content: { text: string }[] }).content[0]!.text, "echo: from node");
    } finally {
      await client.close();
    }
  });
});
