/**
 * docs/gitsync.md's quick start, run as written: every ```sh block marked `<!-- quickstart -->` runs in
 * order, each in its own bash (set -eo pipefail) in one working directory, against a cluster with workloads
 * (kube-apiserver, controllers, kwok nodes), with the built binaries first on PATH and the admin kubeconfig
 * as KUBECONFIG; each block must end with the exit status and print what its marker states. The block
 * marked `<!-- quickstart-git -->` (git daemon serving an empty repository) runs in its place too, and the
 * REPO_URL it exports is what the later blocks get, as they would in the reader's shell. The only change
 * made to the commands: the manager's listeners and the Git daemon get free ports instead of :9443, :8081
 * and :9418 (tests never bind fixed ports).
 *
 * Also the CI recipe: its YAML blocks are the files in examples/gitsync/ci (comments aside), and every
 * `gitsync` command in them uses only flags that command has.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { ROOT, runBinary } from "../harness/binary.ts";
import { assertBlock, markedBlocks, runBlock, sectionBlocks } from "../harness/doc_blocks.ts";
import { type KubeApiServer, startKubeApiServer } from "../harness/k8s.ts";
import { freePort } from "../harness/ports.ts";

const DOC = join(ROOT, "docs/gitsync.md");
const MANAGER = "gitsync-manager run --local-webhook";
const BLOCK_TIMEOUT_MS = 180_000;
const GIT_PORT = "9418";
const BLOCKS = [
  ...markedBlocks(readFileSync(DOC, "utf8"), "quickstart"),
  ...markedBlocks(readFileSync(DOC, "utf8"), "quickstart-git").map((b) => ({ ...b, git: true })),
].sort((a, b) => a.line - b.line);

describe("docs/gitsync.md: the quick start, run as written", () => {
  let k8s: KubeApiServer;
  let dir: string;
  let env: Record<string, string>;
  const groups: number[] = [];
  let broken: string | undefined;

  before(async () => {
    k8s = await startKubeApiServer({ workloads: true });
    dir = await mkdtemp(join(tmpdir(), "gitsync-quickstart-"));
    // Commands run "from the repository's root": its examples/ and deploy/, and nothing written into it.
    for (const d of ["examples", "deploy"]) await symlink(join(ROOT, d), join(dir, d));
    env = {
      PATH: `${join(ROOT, "dist")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HOME: dir,
      KUBECONFIG: k8s.kubeconfigPath,
      GIT_AUTHOR_NAME: "Quick Start",
      GIT_AUTHOR_EMAIL: "quickstart@example.test",
      GIT_COMMITTER_NAME: "Quick Start",
      GIT_COMMITTER_EMAIL: "quickstart@example.test",
      GIT_CONFIG_NOSYSTEM: "1",
    };
  });
  after(async () => {
    for (const g of groups) {
      try {
        process.kill(-g, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await k8s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("marks the blocks it runs: install, repository, application, approve, failure, rollback, clean-up", () => {
    assert.ok(BLOCKS.length >= 11, `${BLOCKS.length} blocks`);
    assert.equal(BLOCKS.filter((b) => b.code.includes(MANAGER)).length, 1, `one block runs "${MANAGER}"`);
    const git = BLOCKS.filter((b) => "git" in b);
    assert.equal(git.length, 1, "one block serves the Git repository");
    assert.match(
      git[0]!.code,
      new RegExp(`--port=${GIT_PORT}\\b[\\s\\S]*^export REPO_URL=\\S+:${GIT_PORT}/`, "m"),
    );
  });

  // One test per block, in the document's order.
  for (const block of BLOCKS) {
    it(`line ${block.line}: ${block.code.split("\n")[0]}`, async () => {
      // Later steps build on earlier ones: after a failure they are not run, and say so.
      if (broken) throw new Error(`not run: the block at ${broken} failed`);
      const replace: [string, string][] = [];
      if (block.code.includes(MANAGER)) {
        replace.push([
          MANAGER,
          `${MANAGER} --webhook-bind-address 127.0.0.1:${await freePort()} ` +
          `--health-probe-bind-address 127.0.0.1:${await freePort()}`,
        ]);
      }
      if ("git" in block) replace.push([GIT_PORT, String(await freePort())]);
      const r = await runBlock(block, { cwd: dir, env, replace, groups, timeoutMs: BLOCK_TIMEOUT_MS });
      const log = await readFile(join(dir, "gitsync-manager.log"), "utf8").catch(() => "");
      try {
        assertBlock(block, r, {
          explain: `--- gitsync-manager.log (end) ---\n${log.split("\n").slice(-25).join("\n")}`,
        });
        // The reader's shell keeps what the block exports.
        const exported = /^export REPO_URL=(\S+)$/m.exec(
          replace.reduce((t, [a, b]) => t.replaceAll(a, b), block.code),
        );
        if (exported) env.REPO_URL = exported[1]!;
      } catch (err) {
        broken = `line ${block.line}`;
        throw err;
      }
    });
  }

  it("the install block does not wait forever when the manager cannot start: it prints why", async () => {
    const install = BLOCKS.find((b) => b.code.includes(MANAGER))!;
    // Something else holds the health probes' port.
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    try {
      const port = (taken.address() as AddressInfo).port;
      const manager =
        `${MANAGER} --webhook-bind-address 127.0.0.1:${await freePort()} --health-probe-bind-address 127.0.0.1:${port}`;
      const cwd = await mkdtemp(join(tmpdir(), "gitsync-quickstart-busy-"));
      for (const d of ["examples", "deploy"]) await symlink(join(ROOT, d), join(cwd, d));
      const started = Date.now();
      const r = await runBlock(install, { cwd, env, replace: [[MANAGER, manager]], groups });
      assert.ok(Date.now() - started < 60_000, "the loop ended");
      assert.match(r.output, new RegExp(`port ${port} in use`), r.output);
      await rm(cwd, { recursive: true, force: true });
    } finally {
      taken.close();
    }
  });
});

describe("docs/gitsync.md: the CI recipe", () => {
  it("its YAML blocks are the example files, comments aside", async () => {
    const shown = sectionBlocks(await readFile(DOC, "utf8"), "## CI recipe", "yaml").map((y) => parse(y));
    const files = await Promise.all(
      ["github-actions.yml", "gitlab-ci.yml"].map(async (f) =>
        parse(await readFile(join(ROOT, "examples/gitsync/ci", f), "utf8"))
      ),
    );
    assert.deepEqual(shown, files);
  });

  it("every gitsync command in them uses only flags that command has", async () => {
    const scripts: string[] = [];
    const gh = parse(await readFile(join(ROOT, "examples/gitsync/ci/github-actions.yml"), "utf8"));
    for (const step of gh.jobs.deploy.steps) if (step.run) scripts.push(step.run);
    const gl = parse(await readFile(join(ROOT, "examples/gitsync/ci/gitlab-ci.yml"), "utf8"));
    scripts.push(...gl["deploy-web"].script);
    const commands = scripts.flatMap((s) => s.split("\n")).map((l) => l.trim()).filter((l) =>
      l.startsWith("gitsync ")
    );
    assert.ok(commands.length >= 6, commands.join("\n"));
    const helps = new Map<string, string>();
    for (const line of commands) {
      const [, sub, ...args] = line.split(/\s+/);
      if (!helps.has(sub!)) helps.set(sub!, (await runBinary("gitsync", [sub!, "--help"])).stdout);
      for (const flag of args.filter((a) => a.startsWith("-"))) {
        assert.ok(helps.get(sub!)!.includes(flag), `gitsync ${sub} has ${flag} (in "${line}")`);
      }
    }
  });
});
