/**
 * A real Git server for tests: Git's own `git-http-backend` (smart HTTP) run as CGI behind a small
 * node:http server on a free loopback port, with optional basic auth, serving bare repositories
 * made in a temp dir. `commit()` adds a commit through a work tree and pushes it.
 *
 *   const git = await startGitHttpServer({ users: { alice: "s3cret" } });
 *   const repo = await git.createRepo("web", { "deploy/cm.yaml": "kind: ConfigMap ..." });
 *   // repo.url = http://127.0.0.1:<port>/web.git
 *   await git.stop();
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import ssh2, { type ParsedKey } from "ssh2";
import { freePort } from "./ports.ts";

const run = promisify(execFile);
const BACKEND = "/usr/lib/git-core/git-http-backend";

export interface GitRepo {
  name: string;
  url: string;
  /** git://127.0.0.1:<port>/<name>.git, when the server was started with `daemon: true`. */
  gitUrl?: string;
  /** ssh://git@127.0.0.1:<port>/<name>.git, when the server was started with `ssh: true`. */
  sshUrl?: string;
  /** Writes files (a value starting with "symlink:" makes a symlink), commits, pushes; returns the commit. */
  commit(files: Record<string, string>, message?: string): Promise<string>;
  /** Creates a tag at the current commit and pushes it. */
  tag(name: string): Promise<void>;
  /** A file as the server has it on `branch` (default main), and that branch's head commit. */
  show(path: string, branch?: string): Promise<string>;
  head(branch?: string): Promise<string>;
  /** The full message of the head commit of `branch`. */
  message(branch?: string): Promise<string>;
}

export interface GitHttpServer {
  url: string;
  /** With `ssh: true`: how to reach the repositories over ssh. */
  ssh?: SshAccess;
  createRepo(name: string, files: Record<string, string>): Promise<GitRepo>;
  /** Bytes of response bodies sent so far. */
  bytesSent(): number;
  stop(): Promise<void>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "test",
  GIT_AUTHOR_EMAIL: "test@example.test",
  GIT_COMMITTER_NAME: "test",
  GIT_COMMITTER_EMAIL: "test@example.test",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

async function gitIn(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd, env: { ...process.env, ...GIT_ENV } });
  return stdout.trim();
}

/**
 * With `daemon: true`, Git's own `git daemon` also serves the repositories over git:// (read-only); with
 * `ssh: true`, an SSH server (ssh2) runs Git's own `git-upload-pack` for user `git` with a generated key.
 * Pushes over HTTP are taken from authenticated users, and from anyone with `anonymousPush: true`.
 */
export async function startGitHttpServer(
  options: { users?: Record<string, string>; daemon?: boolean; ssh?: boolean; anonymousPush?: boolean } = {},
): Promise<GitHttpServer> {
  const root = await mkdtemp(join(tmpdir(), "git-http-"));
  await mkdir(join(root, "srv"), { recursive: true });
  const daemon = options.daemon ? await startGitDaemon(join(root, "srv")) : undefined;
  const ssh = options.ssh ? await startSshGitServer(join(root, "srv")) : undefined;
  let sent = 0;
  const server: Server = createServer((req, res) => {
    let remoteUser = "";
    if (options.users) {
      const header = req.headers.authorization ?? "";
      const [user, pass] = Buffer.from(header.replace(/^Basic /, ""), "base64").toString().split(":");
      if (!header.startsWith("Basic ") || options.users[user ?? ""] !== pass) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="git"' });
        res.end();
        return;
      }
      // git-http-backend accepts pushes (receive-pack) from authenticated users only, as real hosts do.
      remoteUser = user!;
    }
    const url = new URL(req.url ?? "/", "http://x");
    const cgi = spawn(BACKEND, [], {
      env: {
        ...GIT_ENV,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: join(root, "srv"),
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
        REMOTE_ADDR: "127.0.0.1",
        ...(remoteUser ? { REMOTE_USER: remoteUser } : {}),
        ...(options.anonymousPush
          ? { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.receivepack", GIT_CONFIG_VALUE_0: "true" }
          : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        sent += chunk.length;
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const i = line.indexOf(":");
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === "status") status = Number(v.split(" ")[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      const rest = head.subarray(end + 4);
      sent += rest.length;
      res.write(rest);
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    ...(ssh ? { ssh: ssh.access } : {}),
    bytesSent: () => sent,
    async createRepo(name, files) {
      const bare = join(root, "srv", `${name}.git`);
      const work = join(root, "work", name);
      await mkdir(bare, { recursive: true });
      await mkdir(work, { recursive: true });
      await gitIn(bare, ["init", "--bare", "-b", "main"]);
      await gitIn(work, ["init", "-b", "main"]);
      await gitIn(work, ["remote", "add", "origin", bare]);
      let first = true;
      const repo: GitRepo = {
        name,
        url: `${url}/${name}.git`,
        ...(daemon ? { gitUrl: `git://127.0.0.1:${daemon.port}/${name}.git` } : {}),
        ...(ssh ? { sshUrl: `ssh://git@127.0.0.1:${ssh.access.port}/${name}.git` } : {}),
        async commit(changes, message = "change") {
          // Others (the code under test) may have pushed since: build on the server's head.
          if (first) first = false;
          else {
            await gitIn(work, ["fetch", "-q", "origin", "main"]);
            await gitIn(work, ["reset", "-q", "--hard", "origin/main"]);
          }
          for (const [path, content] of Object.entries(changes)) {
            const file = join(work, path);
            await mkdir(dirname(file), { recursive: true });
            await rm(file, { force: true });
            if (content.startsWith("symlink:")) await symlink(content.slice("symlink:".length), file);
            else await writeFile(file, content);
          }
          await gitIn(work, ["add", "-A"]);
          await gitIn(work, ["commit", "-q", "-m", message]);
          await gitIn(work, ["push", "-q", "origin", "main"]);
          return await gitIn(work, ["rev-parse", "HEAD"]);
        },
        async tag(tag) {
          await gitIn(work, ["tag", tag]);
          await gitIn(work, ["push", "-q", "origin", tag]);
        },
        show: async (path, branch = "main") =>
          (await run("git", ["show", `${branch}:${path}`], {
            cwd: bare,
            env: { ...process.env, ...GIT_ENV },
          })).stdout,
        head: (branch = "main") => gitIn(bare, ["rev-parse", branch]),
        message: (branch = "main") => gitIn(bare, ["log", "-1", "--format=%B", branch]),
      };
      await repo.commit(files, "initial");
      return repo;
    },
    async stop() {
      daemon?.child.kill();
      await ssh?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await closed;
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** `git daemon` on a free loopback port, exporting every repository under `base`; ready when it accepts. */
async function startGitDaemon(base: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn("git", [
    "daemon",
    "--export-all",
    "--reuseaddr",
    "--informative-errors",
    `--base-path=${base}`,
    "--listen=127.0.0.1",
    `--port=${port}`,
    base,
  ], { env: { ...process.env, ...GIT_ENV }, stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return { port, child };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`git daemon did not start on port ${port}`);
}

export interface SshAccess {
  port: number;
  /** known_hosts lines for the server's host key (`[127.0.0.1]:<port> ssh-ed25519 ...`). */
  knownHosts: string;
  /** The private key (OpenSSH) the server accepts for user git. */
  identity: string;
  /** Commands the server ran, for assertions. */
  commands: string[];
}

/**
 * An SSH server on a free loopback port that accepts user `git` with one generated ed25519 key and runs
 * `git-upload-pack` for repositories under `base` (absolute `/name.git` or home-relative `name.git`).
 */
async function startSshGitServer(base: string): Promise<{ access: SshAccess; stop(): Promise<void> }> {
  const { Server, utils } = ssh2;
  const hostKey = utils.generateKeyPairSync("ed25519");
  const userKey = utils.generateKeyPairSync("ed25519");
  const allowed = utils.parseKey(userKey.public) as ParsedKey;
  const commands: string[] = [];
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    client.on("authentication", (ctx) => {
      if (
        ctx.method === "publickey" && ctx.username === "git" && ctx.key.algo === allowed.type &&
        ctx.key.data.equals(allowed.getPublicSSH()) &&
        (!ctx.signature || allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo))
      ) {
        return ctx.accept();
      }
      ctx.reject(["publickey"]);
    });
    client.on("ready", () => {
      client.on("session", (accept) => {
        accept().on("exec", (acceptExec, reject, info) => {
          commands.push(info.command);
          const m = /^git-upload-pack '\/?([A-Za-z0-9._-]+\.git)'$/.exec(info.command);
          if (!m) return reject();
          const channel = acceptExec();
          const git = spawn("git-upload-pack", [join(base, m[1]!)], { env: { ...process.env, ...GIT_ENV } });
          channel.pipe(git.stdin);
          git.stdout.pipe(channel);
          git.stderr.pipe(channel.stderr);
          git.on("close", (code) => {
            channel.exit(code ?? 1);
            channel.end();
          });
        });
      });
    });
    client.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const [type, key] = hostKey.public.split(" "); // OpenSSH public key line: "<type> <base64> [comment]"
  return {
    access: { port, knownHosts: `[127.0.0.1]:${port} ${type} ${key}\n`, identity: userKey.private, commands },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
