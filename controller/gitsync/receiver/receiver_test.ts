import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type Receiver, startReceiver } from "./receiver.ts";
import { repositoryIdentity } from "./repo_url.ts";

const TOKEN = "s3cret-hook-token";
const repos: Record<string, { url: string; token: string } | "boom"> = {
  "shop/web": { url: "https://git.example.com/team/web.git", token: TOKEN },
  "shop/api": { url: "git@git.example.com:team/api", token: TOKEN },
  "shop/broken": "boom",
};
const githubPush = (cloneUrl: string) =>
  JSON.stringify({ ref: "refs/heads/main", repository: { clone_url: cloneUrl } });
const sign = (body: string, token = TOKEN) =>
  `sha256=${createHmac("sha256", token).update(body).digest("hex")}`;

describe("push receiver", () => {
  let receiver: Receiver;
  let clock = 0;
  const requested: string[] = [];
  const results: string[] = [];
  const scans: string[] = [];

  before(async () => {
    receiver = await startReceiver({
      host: "127.0.0.1",
      port: 0,
      now: () => clock,
      lookup: (ns, name) => {
        const r = repos[`${ns}/${name}`];
        if (r === "boom") return Promise.reject(new Error("API down"));
        return Promise.resolve(r);
      },
      requestReconcile: (ns, name) => {
        requested.push(`${ns}/${name}`);
        return Promise.resolve();
      },
      lookupImagePolicy: (ns, name) =>
        Promise.resolve(ns === "shop" && name === "web" ? { token: TOKEN } : undefined),
      requestScan: (ns, name) => {
        scans.push(`${ns}/${name}`);
        return Promise.resolve();
      },
      onResult: (r) => results.push(r),
    });
  });
  after(() => receiver?.close());

  const post = async (path: string, body: string, headers: Record<string, string>) => {
    clock += 1_000; // a second between tests' requests: the limiters refill
    const res = await fetch(`http://127.0.0.1:${receiver.port}${path}`, { method: "POST", body, headers });
    return { status: res.status, text: await res.text() };
  };

  it("a signed GitHub push naming the Repository's URL is accepted and stamps it", async () => {
    const body = githubPush("https://GIT.example.com/team/web");
    const r = await post("/hooks/shop/web", body, {
      "x-github-event": "push",
      "x-hub-signature-256": sign(body),
    });
    assert.deepEqual(r, { status: 202, text: "accepted\n" });
    assert.deepEqual(requested, ["shop/web"]);
  });

  it("a GitLab push with the token is accepted; scp-style and https URLs are one repository", async () => {
    const body = JSON.stringify({ project: { git_http_url: "https://git.example.com/team/api.git" } });
    const r = await post("/hooks/shop/api", body, { "x-gitlab-event": "Push Hook", "x-gitlab-token": TOKEN });
    assert.deepEqual(r, { status: 202, text: "accepted\n" });
  });

  it("a bad signature, an unknown Repository and no credentials all get the same 401", async () => {
    const body = githubPush("https://git.example.com/team/web");
    const bad = await post("/hooks/shop/web", body, {
      "x-github-event": "push",
      "x-hub-signature-256": sign(body, "x"),
    });
    const unknown = await post("/hooks/shop/nope", body, {
      "x-github-event": "push",
      "x-hub-signature-256": sign(body),
    });
    const none = await post("/hooks/shop/web", body, { "x-github-event": "push" });
    for (const r of [bad, unknown, none]) assert.deepEqual(r, { status: 401, text: "unauthorized\n" });
  });

  it("ping answers 200, other events are ignored, a push for another repository is a mismatch", async () => {
    const ping = "{}";
    assert.deepEqual(
      await post("/hooks/shop/web", ping, { "x-github-event": "ping", "x-hub-signature-256": sign(ping) }),
      { status: 200, text: "ping\n" },
    );
    assert.deepEqual(
      await post("/hooks/shop/web", ping, { "x-github-event": "issues", "x-hub-signature-256": sign(ping) }),
      { status: 202, text: "ignored\n" },
    );
    const other = githubPush("https://git.example.com/team/other");
    assert.deepEqual(
      await post("/hooks/shop/web", other, { "x-github-event": "push", "x-hub-signature-256": sign(other) }),
      { status: 400, text: "repository_mismatch\n" },
    );
  });

  it("a body over 1 MB is 413 before any lookup; an API error is 500", async () => {
    const big = "x".repeat(1024 * 1024 + 1);
    assert.deepEqual(await post("/hooks/shop/web", big, { "x-github-event": "push" }), {
      status: 413,
      text: "too_large\n",
    });
    const body = githubPush("https://git.example.com/team/web");
    assert.deepEqual(
      await post("/hooks/shop/broken", body, { "x-github-event": "push", "x-hub-signature-256": sign(body) }),
      { status: 500, text: "error\n" },
    );
  });

  it("per Repository: 10 at once, then 429, charged only after authentication", async () => {
    clock += 60_000;
    const body = "{}";
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`http://127.0.0.1:${receiver.port}/hooks/shop/web`, {
        method: "POST",
        body,
        headers: { "x-github-event": "ping", "x-hub-signature-256": sign(body) },
      });
      await res.text();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429]);
  });

  it("per address: 50 at once, then 429 before authentication is even tried", async () => {
    clock += 60_000;
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      const res = await fetch(`http://127.0.0.1:${receiver.port}/hooks/shop/nope`, {
        method: "POST",
        body: "{}",
      });
      await res.text();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, 50), Array(50).fill(401));
    assert.deepEqual(statuses.slice(50), [429, 429]);
    assert.ok(results.includes("rate_limited"));
  });

  it("ImagePolicy hooks: bearer, GitHub signature or GitLab token; unknown policy and bad token are the same 401", async () => {
    const body = JSON.stringify({ action: "published", package: { name: "web" } });
    assert.deepEqual(
      await post("/hooks/imagepolicies/shop/web", body, { authorization: `Bearer ${TOKEN}` }),
      {
        status: 202,
        text: "accepted\n",
      },
    );
    assert.equal(
      (await post("/hooks/imagepolicies/shop/web", body, {
        "x-github-event": "package",
        "x-hub-signature-256": sign(body),
      }))
        .status,
      202,
    );
    assert.equal(
      (await post("/hooks/imagepolicies/shop/web", body, { "x-gitlab-token": TOKEN })).status,
      202,
    );
    assert.deepEqual(scans, ["shop/web", "shop/web", "shop/web"]);
    for (
      const [path, headers] of [
        ["/hooks/imagepolicies/shop/web", { authorization: "Bearer wrong" }],
        ["/hooks/imagepolicies/shop/none", { authorization: `Bearer ${TOKEN}` }],
        ["/hooks/imagepolicies/shop/web", {}],
      ] as const
    ) {
      assert.deepEqual(await post(path, body, headers), { status: 401, text: "unauthorized\n" }, path);
    }
    // A Repository hook does not take a bearer token.
    assert.equal(
      (await post("/hooks/shop/web", githubPush("https://git.example.com/team/web"), {
        authorization: `Bearer ${TOKEN}`,
      })).status,
      401,
    );
    assert.equal(
      (await post("/hooks/imagepolicies/shop/web", body, {
        "x-github-event": "push",
        "x-hub-signature-256": sign(body),
      }))
        .text,
      "ignored\n",
    );
    assert.equal(scans.length, 3);
  });
});

describe("repository identity", () => {
  it("matches across schemes, case, users, ports, slashes and .git", () => {
    const same = [
      "https://GitHub.com/org/app.git",
      "git@github.com:org/app",
      "ssh://git@github.com:22/org/app/",
      "http://github.com/org/app",
    ];
    for (const u of same) assert.equal(repositoryIdentity(u), "github.com/org/app", u);
    assert.notEqual(repositoryIdentity("https://github.com/org/app2"), "github.com/org/app");
    assert.equal(repositoryIdentity("not a url"), undefined);
  });
});
