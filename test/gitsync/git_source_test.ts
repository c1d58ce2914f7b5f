/**
 * gitsync's Git source over HTTP against a real Git server (git-http-backend): shallow first fetch,
 * incremental later fetches, branch/tag/commit revisions, credentials, and the checkout's refusals.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CommitTrees } from "../../controller/gitsync/source/git/commit_trees.ts";
import {
  cacheDir,
  checkout,
  fetchGit,
  GitSourceError,
} from "../../controller/gitsync/source/git/git_source.ts";
import { type GitHttpServer, type GitRepo, startGitHttpServer } from "../harness/git_server.ts";

const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : undefined);

describe("Git source over HTTP", () => {
  let server: GitHttpServer;
  let repo: GitRepo;
  let cacheRoot: string;
  const creds = { username: "alice", password: "s3cret-pass" };

  before(async () => {
    server = await startGitHttpServer({ users: { alice: "s3cret-pass" } });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-cache-"));
    repo = await server.createRepo("web", {
      "deploy/web.yaml": "kind: ConfigMap\n",
      "deploy/values.yaml": "x: 1\n",
      "deploy/link.yaml": "symlink:values.yaml",
      // Big enough that a re-download would show in the byte count.
      "assets/blob.txt": randomBytes(384 * 1024).toString("base64"),
    });
  });
  after(async () => {
    await server?.stop();
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  it("fetches a branch shallow and checks out its files, symlinks followed inside the tree", async () => {
    const f = await fetchGit({
      url: repo.url,
      revision: "main",
      credentials: creds,
      cacheRoot,
      cacheKey: "team/web",
    });
    assert.match(f.commit, /^[0-9a-f]{40}$/);
    const files = await checkout(f);
    assert.equal(text(files.get("deploy/web.yaml")), "kind: ConfigMap\n");
    assert.equal(text(files.get("deploy/link.yaml")), "x: 1\n");
    assert.equal(files.get("assets/blob.txt")?.length, 4 * 128 * 1024);
  });

  it("a later fetch after a new commit is incremental: far fewer bytes than the first", async () => {
    const key = { cacheRoot, cacheKey: "team/incremental", credentials: creds };
    const first = await fetchGit({ url: repo.url, revision: "main", ...key });
    const commit = await repo.commit({ "deploy/web.yaml": "kind: ConfigMap\ndata: {a: b}\n" });
    const second = await fetchGit({ url: repo.url, revision: "main", ...key });
    assert.equal(second.commit, commit);
    assert.ok(first.bytes > 50_000, `first fetch ${first.bytes} bytes`);
    assert.ok(second.bytes < first.bytes / 5, `second fetch ${second.bytes} bytes, first ${first.bytes}`);
    assert.equal(text((await checkout(second)).get("deploy/web.yaml")), "kind: ConfigMap\ndata: {a: b}\n");
  });

  it("fetches of one URL, revision and credentials share a clone; other credentials never do", async () => {
    const shared = await mkdtemp(join(tmpdir(), "gitsync-shared-"));
    try {
      const source = { url: repo.url, revision: "main", cacheRoot: shared, credentials: creds };
      // Ten Repositories in ten namespaces reconciling at once: one pays for the pack.
      const fetched = await Promise.all(Array.from({ length: 10 }, () => fetchGit(source)));
      assert.equal(new Set(fetched.map((f) => f.commit)).size, 1);
      assert.equal(new Set(fetched.map((f) => f.gitdir)).size, 1);
      const bytes = fetched.map((f) => f.bytes).sort((a, b) => b - a);
      assert.ok(bytes[0]! > 50_000, `first fetch ${bytes[0]} bytes`);
      assert.ok(bytes[1]! < bytes[0]! / 5, `later fetches ${bytes.slice(1)} bytes, first ${bytes[0]}`);
      assert.equal(
        text((await checkout(fetched[3]!)).get("deploy/web.yaml"))?.startsWith("kind: ConfigMap"),
        true,
      );
      assert.notEqual(
        cacheDir({ ...source, credentials: { ...creds, password: "other" } }),
        fetched[0]!.gitdir,
      );
      assert.notEqual(cacheDir({ ...source, revision: "v1.0.0" }), fetched[0]!.gitdir);
      assert.notEqual(cacheDir({ ...source, cacheKey: "team/web#image-update" }), fetched[0]!.gitdir);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  it("commit trees come from the bare cache without the network once fetched, and are shared", async () => {
    const own = await startGitHttpServer();
    const r = await own.createRepo("cached", { "deploy/a.yaml": "kind: ConfigMap\n" });
    const source = { url: r.url, cacheRoot, cacheKey: "team/cached" };
    const fetched = await fetchGit({ ...source, revision: "main" });
    await own.stop(); // From here on the remote is gone.
    const trees = new CommitTrees();
    const [a, b] = await Promise.all([
      trees.get(source, fetched.commit, "main"),
      trees.get(source, fetched.commit, "main"),
    ]);
    assert.equal(a, b, "one checkout for concurrent reads");
    assert.equal(text(a.get("deploy/a.yaml")), "kind: ConfigMap\n");
    assert.equal(
      text((await new CommitTrees().get(source, fetched.commit, "main")).get("deploy/a.yaml")),
      "kind: ConfigMap\n",
    );
    // A commit the cache lacks needs the remote, and says so.
    await assert.rejects(trees.get(source, "0".repeat(40), "main"));
  });

  it("resolves a tag and a commit SHA", async () => {
    await repo.tag("v1.0.0");
    const tagged = await fetchGit({
      url: repo.url,
      revision: "v1.0.0",
      credentials: creds,
      cacheRoot,
      cacheKey: "team/tag",
    });
    const head = await fetchGit({
      url: repo.url,
      revision: "main",
      credentials: creds,
      cacheRoot,
      cacheKey: "team/tag",
    });
    assert.equal(tagged.commit, head.commit);
    const older = await repo.commit({ "deploy/extra.yaml": "kind: Secret\n" });
    await repo.commit({ "deploy/extra.yaml": "kind: ConfigMap\n" });
    const pinned = await fetchGit({
      url: repo.url,
      revision: older,
      credentials: creds,
      cacheRoot,
      cacheKey: "team/sha",
    });
    assert.equal(pinned.commit, older);
    assert.equal(text((await checkout(pinned)).get("deploy/extra.yaml")), "kind: Secret\n");
  });

  it("wrong credentials fail with AuthenticationFailure and never show them", async () => {
    await assert.rejects(
      fetchGit({
        url: repo.url,
        revision: "main",
        credentials: { username: "alice", password: "wrong-password-123" },
        cacheRoot,
        cacheKey: "team/bad",
      }),
      (err) => {
        assert.ok(err instanceof GitSourceError);
        assert.equal(err.reason, "AuthenticationFailure");
        assert.doesNotMatch(err.message, /wrong-password-123|s3cret/);
        return true;
      },
    );
  });

  it("an unknown branch is a SourceFailure naming it", async () => {
    await assert.rejects(
      fetchGit({ url: repo.url, revision: "nope", credentials: creds, cacheRoot, cacheKey: "team/nope" }),
      /revision nope was not found/,
    );
  });

  it("refuses filesystem URLs and credentials in URLs before connecting", async () => {
    for (const url of ["/srv/repo.git", "file:///srv/repo.git", "ftp://h/r.git"]) {
      await assert.rejects(
        fetchGit({ url, revision: "main", cacheRoot, cacheKey: "x" }),
        /refused|not allowed|not a Git URL/,
      );
    }
    await assert.rejects(
      fetchGit({
        url: repo.url.replace("http://", "http://alice:s3cret-pass@"),
        revision: "main",
        cacheRoot,
        cacheKey: "x",
      }),
      (err: Error) =>
        !err.message.includes("s3cret") && /credentials in a Git URL are refused/.test(err.message),
    );
  });

  it("refuses a commit with a symlink that resolves outside the checkout", async () => {
    const evil = await server.createRepo("evil", {
      "deploy/ok.yaml": "a: 1\n",
      "deploy/passwd.yaml": "symlink:../../etc/passwd",
    });
    const f = await fetchGit({
      url: evil.url,
      revision: "main",
      credentials: creds,
      cacheRoot,
      cacheKey: "team/evil",
    });
    await assert.rejects(
      checkout(f),
      /symlink deploy\/passwd.yaml -> ..\/..\/etc\/passwd resolves outside the checkout/,
    );
  });
});

describe("Git source over git:// (git daemon)", () => {
  let server: GitHttpServer;
  let repo: GitRepo;
  let cacheRoot: string;

  before(async () => {
    server = await startGitHttpServer({ daemon: true });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-cache-"));
    repo = await server.createRepo("daemon", {
      "deploy/web.yaml": "kind: ConfigMap\n",
      "assets/blob.txt": randomBytes(384 * 1024).toString("base64"),
    });
  });
  after(async () => {
    await server?.stop();
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  it("fetches shallow, then incrementally, through the same cache logic as HTTP", async () => {
    const key = { cacheRoot, cacheKey: "team/daemon" };
    const first = await fetchGit({ url: repo.gitUrl!, revision: "main", ...key });
    assert.equal(text((await checkout(first)).get("deploy/web.yaml")), "kind: ConfigMap\n");
    const commit = await repo.commit({ "deploy/web.yaml": "kind: ConfigMap\ndata: {a: b}\n" });
    const second = await fetchGit({ url: repo.gitUrl!, revision: "main", ...key });
    assert.equal(second.commit, commit);
    assert.ok(first.bytes > 50_000, `first fetch ${first.bytes} bytes`);
    assert.ok(second.bytes < first.bytes / 5, `second fetch ${second.bytes} bytes, first ${first.bytes}`);
    assert.equal(text((await checkout(second)).get("deploy/web.yaml")), "kind: ConfigMap\ndata: {a: b}\n");
  });

  it("resolves a tag and a commit SHA", async () => {
    await repo.tag("v2");
    const older = await repo.commit({ "deploy/extra.yaml": "kind: Secret\n" });
    await repo.commit({ "deploy/extra.yaml": "kind: ConfigMap\n" });
    const tagged = await fetchGit({ url: repo.gitUrl!, revision: "v2", cacheRoot, cacheKey: "team/tag" });
    assert.equal(text((await checkout(tagged)).get("deploy/extra.yaml")), undefined);
    const pinned = await fetchGit({ url: repo.gitUrl!, revision: older, cacheRoot, cacheKey: "team/sha" });
    assert.equal(text((await checkout(pinned)).get("deploy/extra.yaml")), "kind: Secret\n");
  });

  it("a repository the daemon does not have, an unknown branch and a closed port are SourceFailures", async () => {
    const missing = repo.gitUrl!.replace("daemon.git", "nothing.git");
    await assert.rejects(
      fetchGit({ url: missing, revision: "main", cacheRoot, cacheKey: "x/missing" }),
      (err: Error) => {
        assert.ok(err instanceof GitSourceError && err.reason === "SourceFailure");
        assert.match(err.message, /git server: .*(not found|no such repository|not exported)/i);
        return true;
      },
    );
    await assert.rejects(
      fetchGit({ url: repo.gitUrl!, revision: "nope", cacheRoot, cacheKey: "x/nope" }),
      /revision nope was not found/,
    );
    await assert.rejects(
      fetchGit({ url: "git://127.0.0.1:1/r.git", revision: "main", cacheRoot, cacheKey: "x/closed" }),
      /fetching git:\/\/127\.0\.0\.1:1\/r\.git failed: .*ECONNREFUSED/,
    );
  });
});

describe("Git source over ssh (ssh2 server running git-upload-pack)", () => {
  let server: GitHttpServer;
  let repo: GitRepo;
  let cacheRoot: string;
  let creds: { identity: string; knownHosts: string };

  before(async () => {
    server = await startGitHttpServer({ ssh: true });
    cacheRoot = await mkdtemp(join(tmpdir(), "gitsync-cache-"));
    repo = await server.createRepo("secure", {
      "deploy/web.yaml": "kind: ConfigMap\n",
      "assets/blob.txt": randomBytes(384 * 1024).toString("base64"),
    });
    creds = { identity: server.ssh!.identity, knownHosts: server.ssh!.knownHosts };
  });
  after(async () => {
    await server?.stop();
    if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
  });

  it("fetches shallow, then incrementally, with the identity and known_hosts of the Secret", async () => {
    const key = { cacheRoot, cacheKey: "team/ssh", credentials: creds };
    const first = await fetchGit({ url: repo.sshUrl!, revision: "main", ...key });
    assert.equal(text((await checkout(first)).get("deploy/web.yaml")), "kind: ConfigMap\n");
    const commit = await repo.commit({ "deploy/web.yaml": "kind: ConfigMap\ndata: {a: b}\n" });
    const second = await fetchGit({ url: repo.sshUrl!, revision: "main", ...key });
    assert.equal(second.commit, commit);
    assert.ok(second.bytes < first.bytes / 5, `second fetch ${second.bytes} bytes, first ${first.bytes}`);
    assert.equal(server.ssh!.commands.at(-1), "git-upload-pack '/secure.git'");
  });

  it("refuses a host whose key is not in known_hosts, and credentials the server refuses", async () => {
    const other = (await import("ssh2")).default.utils.generateKeyPairSync("ed25519");
    const wrongHost = {
      ...creds,
      knownHosts: `[127.0.0.1]:${server.ssh!.port} ${other.public.split(" ").slice(0, 2).join(" ")}\n`,
    };
    await assert.rejects(
      fetchGit({
        url: repo.sshUrl!,
        revision: "main",
        cacheRoot,
        cacheKey: "x/host",
        credentials: wrongHost,
      }),
      (err: Error) => {
        assert.ok(err instanceof GitSourceError && err.reason === "AuthenticationFailure");
        assert.match(err.message, /host key of 127\.0\.0\.1:\d+ is not in the Secret's known_hosts/);
        return true;
      },
    );
    const commandsBefore = server.ssh!.commands.length;
    await assert.rejects(
      fetchGit({
        url: repo.sshUrl!,
        revision: "main",
        cacheRoot,
        cacheKey: "x/key",
        credentials: { ...creds, identity: other.private },
      }),
      (err: Error) => {
        assert.ok(
          err instanceof GitSourceError && err.reason === "AuthenticationFailure",
          `${err.constructor.name} ${(err as GitSourceError).reason}: ${err.message}`,
        );
        assert.match(err.message, /git@127\.0\.0\.1 refused the SSH credentials/);
        assert.doesNotMatch(err.message, /PRIVATE KEY/);
        return true;
      },
    );
    assert.equal(server.ssh!.commands.length, commandsBefore, "nothing ran");
    await assert.rejects(
      fetchGit({
        url: repo.sshUrl!,
        revision: "main",
        cacheRoot,
        cacheKey: "x/none",
        credentials: { identity: creds.identity },
      }),
      /ssh needs the server's host key in the credentials Secret \(key known_hosts/,
    );
  });
});
