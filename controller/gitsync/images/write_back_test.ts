import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GitHttpServer, startGitHttpServer } from "../../../test/harness/git_server.ts";
import { writeBack, WriteBackError } from "./write_back.ts";
import type { LatestImage } from "./markers.ts";

const DIGEST = "sha256:" + "cd".repeat(32);
const deployment = (image: string) =>
  [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata: {name: web}   # flow style and this comment stay",
    "spec:",
    "  template:",
    "    spec:",
    "      containers:",
    `        - image: ${image} # {"$imagepolicy": "team:web"}`,
    "          name: web",
    "",
  ].join("\n");

describe("writeBack against git-http-backend", () => {
  let server: GitHttpServer;
  let cacheRoot: string;
  const latest: Record<string, LatestImage> = {};
  const credentials = { username: "bot", password: "push-token" };
  before(async () => {
    server = await startGitHttpServer({ users: { bot: "push-token" } });
    cacheRoot = await mkdtemp(join(tmpdir(), "write-back-"));
  });
  after(async () => {
    await server?.stop();
    await rm(cacheRoot, { recursive: true, force: true });
  });

  it("pushes one commit that changes only the marked values under the path", async () => {
    const repo = await server.createRepo("apps", {
      "deploy/web.yaml": deployment("registry.example.com/team/web:1.0.0"),
      "deploy/nested/other.yml": 'tag: "1.0.0" # {"$imagepolicy": "team:web:tag"}\n',
      "outside/web.yaml": deployment("registry.example.com/team/web:1.0.0"),
      "README.md": 'image: x # {"$imagepolicy": "team:web"}\n',
    });
    const before = await repo.head();
    latest.web = { image: "registry.example.com/team/web", tag: "1.2.0", digest: DIGEST };
    const o = {
      url: repo.url,
      branch: "main",
      path: "deploy",
      credentials,
      cacheRoot,
      cacheKey: "team/apps",
      namespace: "team",
      latest: (n: string) => latest[n],
    };
    const r = await writeBack(o);
    assert.equal(r.pushed, true);
    assert.equal(await repo.head(), r.commit);
    assert.notEqual(r.commit, before);
    assert.equal(
      await repo.show("deploy/web.yaml"),
      deployment(`registry.example.com/team/web:1.2.0@${DIGEST}`),
    );
    assert.equal(
      await repo.show("deploy/nested/other.yml"),
      'tag: "1.2.0" # {"$imagepolicy": "team:web:tag"}\n',
    );
    assert.equal(await repo.show("outside/web.yaml"), deployment("registry.example.com/team/web:1.0.0"));
    assert.deepEqual(r.changes.map((c) => `${c.file}:${c.line}`).sort(), [
      "deploy/nested/other.yml:1",
      "deploy/web.yaml:8",
    ]);
    assert.match(
      await repo.message(),
      /^gitsync: update images from team\/web\n\n(.*\n)*deploy\/web\.yaml:8: .*web:1\.0\.0 -> /,
    );

    // Nothing new: no commit.
    const again = await writeBack(o);
    assert.deepEqual([again.pushed, again.commit], [false, r.commit]);

    // Someone else pushed in between: the next write-back builds on their commit.
    const theirs = await repo.commit({ "deploy/extra.yaml": "a: 1\n" }, "theirs");
    latest.web = { image: "registry.example.com/team/web", tag: "1.3.0", digest: DIGEST };
    const third = await writeBack(o);
    assert.equal(third.pushed, true);
    assert.equal(await repo.show("deploy/extra.yaml"), "a: 1\n");
    assert.match(await repo.show("deploy/web.yaml"), /web:1\.3\.0@/);
    assert.notEqual(third.commit, theirs);
  });

  it("refuses wrong push credentials as AuthenticationFailure, without echoing them", async () => {
    const repo = await server.createRepo("denied", { "a.yaml": 'i: x # {"$imagepolicy": "team:web"}\n' });
    await assert.rejects(
      writeBack({
        url: repo.url,
        branch: "main",
        credentials: { username: "bot", password: "wrong-secret" },
        cacheRoot,
        cacheKey: "team/denied",
        namespace: "team",
        latest: (n) => latest[n],
      }),
      (e: WriteBackError) => e.reason === "AuthenticationFailure" && !e.message.includes("wrong-secret"),
    );
  });

  it("refuses remotes it cannot push to", async () => {
    await assert.rejects(
      writeBack({
        url: "git://127.0.0.1:9/x.git",
        branch: "main",
        cacheRoot,
        cacheKey: "k",
        namespace: "team",
        latest: () => undefined,
      }),
      /https or http only/,
    );
  });
});
