import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";
import { parseRemoteUrl } from "./remote_url.ts";
import { hostKeyKnown, parseKnownHosts } from "./ssh_transport.ts";

const key = (n: number) => Buffer.alloc(51, n);
const line = (hosts: string, n: number, marker = "") =>
  `${marker ? `${marker} ` : ""}${hosts} ssh-ed25519 ${key(n).toString("base64")}`;

test("known_hosts: plain, [host]:port, hashed, wildcard and negated entries, comments skipped", () => {
  const salt = randomBytes(20);
  const hashed = `|1|${salt.toString("base64")}|${
    createHmac("sha1", salt).update("[git.example.com]:2222").digest("base64")
  }`;
  const entries = parseKnownHosts([
    "# a comment",
    "",
    line("github.com,140.82.112.3", 1),
    line(hashed, 2),
    line("*.corp.example,!evil.corp.example", 3),
  ].join("\n"));
  assert.ok(hostKeyKnown(entries, "github.com", 22, key(1)));
  assert.ok(!hostKeyKnown(entries, "github.com", 22, key(2)), "another key for the host");
  assert.ok(!hostKeyKnown(entries, "github.com", 2222, key(1)), "a non-22 port needs its [host]:port entry");
  assert.ok(hostKeyKnown(entries, "git.example.com", 2222, key(2)), "hashed entry");
  assert.ok(!hostKeyKnown(entries, "git.example.com", 22, key(2)));
  assert.ok(hostKeyKnown(entries, "build.corp.example", 22, key(3)), "wildcard");
  assert.ok(!hostKeyKnown(entries, "evil.corp.example", 22, key(3)), "negated");
  assert.ok(!hostKeyKnown(entries, "githubxcom", 22, key(1)), "a dot is not a wildcard");
});

test("known_hosts: a revoked key is refused even when listed; CA lines are not host keys", () => {
  const entries = parseKnownHosts(
    [line("h", 1), line("h", 1, "@revoked"), line("h", 2, "@cert-authority")].join("\n"),
  );
  assert.ok(!hostKeyKnown(entries, "h", 22, key(1)));
  assert.ok(!hostKeyKnown(entries, "h", 22, key(2)));
});

test("git-upload-pack gets an absolute path for ssh:// URLs and a home-relative one for scp-style", () => {
  assert.equal(parseRemoteUrl("ssh://git@github.com/org/repo.git").serverPath, "/org/repo.git");
  assert.equal(parseRemoteUrl("git@github.com:org/repo.git").serverPath, "org/repo.git");
  assert.equal(parseRemoteUrl("git@github.com:org/repo.git").url, "ssh://git@github.com/org/repo.git");
});
