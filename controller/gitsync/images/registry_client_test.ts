import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  credentialsFor,
  parseChallenge,
  parseImage,
  RegistryClient,
  RegistryError,
} from "./registry_client.ts";
import { startRegistry, type TestRegistry } from "../../../test/harness/registry.ts";

describe("parseImage", () => {
  it("finds the host and the repository path as Docker does", () => {
    assert.deepEqual(
      [parseImage("nginx"), parseImage("bitnami/redis"), parseImage("docker.io/library/nginx")].map((
        r,
      ) => [r.host, r.path]),
      [["registry-1.docker.io", "library/nginx"], ["registry-1.docker.io", "bitnami/redis"], [
        "registry-1.docker.io",
        "library/nginx",
      ]],
    );
    const r = parseImage("127.0.0.1:5000/team/app");
    assert.deepEqual([r.host, r.path], ["127.0.0.1:5000", "team/app"]);
    assert.deepEqual([parseImage("localhost/app").host, parseImage("ghcr.io/o/r").path], [
      "localhost",
      "o/r",
    ]);
  });

  it("refuses a tag, a digest or garbage: the policy chooses those", () => {
    for (const bad of ["nginx:1.25", "ghcr.io/o/r@sha256:abc", "", "a b", "ghcr.io/o/"]) {
      assert.throws(() => parseImage(bad), RegistryError, bad);
    }
  });
});

describe("credentialsFor", () => {
  const ref = parseImage("registry.example.com/team/app");
  it("reads username/password or auth, by host", () => {
    const auth = Buffer.from("robot:pa:ss").toString("base64");
    assert.deepEqual(credentialsFor(JSON.stringify({ auths: { "registry.example.com": { auth } } }), ref), {
      username: "robot",
      password: "pa:ss",
    });
    assert.deepEqual(
      credentialsFor(
        JSON.stringify({ auths: { "https://registry.example.com": { username: "u", password: "p" } } }),
        ref,
      ),
      { username: "u", password: "p" },
    );
    assert.equal(
      credentialsFor(JSON.stringify({ auths: { "other.example.com": { auth } } }), ref),
      undefined,
    );
    assert.deepEqual(
      credentialsFor(
        JSON.stringify({ auths: { "https://index.docker.io/v1/": { auth } } }),
        parseImage("nginx"),
      ),
      { username: "robot", password: "pa:ss" },
    );
  });
  it("refuses a document that is not JSON without echoing it", () => {
    assert.throws(() => credentialsFor("{secret-ish", ref), (e: Error) => !e.message.includes("secret-ish"));
  });
});

describe("parseChallenge", () => {
  it("reads the scheme and parameters", () => {
    assert.deepEqual(
      parseChallenge('Bearer realm="https://auth.example/token",service="reg",scope="repository:a:pull"'),
      {
        scheme: "bearer",
        params: { realm: "https://auth.example/token", service: "reg", scope: "repository:a:pull" },
      },
    );
  });
});

describe("RegistryClient against the distribution registry with token auth", () => {
  let registry: TestRegistry;
  const pushed: Record<string, string> = {};
  before(async () => {
    registry = await startRegistry({ users: { robot: "s3cret" } });
    for (const tag of ["1.0.0", "1.1.0", "2.0.0", "latest", "main-7"]) {
      pushed[tag] = await registry.pushImage("team/app", tag);
    }
  });
  after(() => registry?.stop());

  it("lists every tag across pages and reads manifest digests", async () => {
    const client = new RegistryClient(parseImage(`${registry.host}/team/app`), {
      credentials: { username: "robot", password: "s3cret" },
      pageSize: 2,
    });
    assert.deepEqual((await client.tags()).sort(), Object.keys(pushed).sort());
    assert.equal(await client.digest("1.1.0"), pushed["1.1.0"]);
    assert.match(pushed["1.1.0"]!, /^sha256:[0-9a-f]{64}$/);
    // One token for the whole scan, renewed only on expiry.
    const granted = registry.tokenRequests.granted;
    await client.digest("2.0.0");
    assert.equal(registry.tokenRequests.granted, granted);
  });

  it("fails as AuthenticationFailure with wrong or missing credentials, never echoing them", async () => {
    for (const credentials of [{ username: "robot", password: "wrong-password" }, undefined]) {
      const client = new RegistryClient(
        parseImage(`${registry.host}/team/app`),
        credentials ? { credentials } : {},
      );
      await assert.rejects(client.tags(), (e: RegistryError) => {
        assert.equal(e.reason, "AuthenticationFailure");
        assert.doesNotMatch(e.message, /wrong-password/);
        return true;
      });
    }
  });

  it("says which repository or tag is missing", async () => {
    const client = new RegistryClient(parseImage(`${registry.host}/team/app`), {
      credentials: { username: "robot", password: "s3cret" },
    });
    await assert.rejects(client.digest("9.9.9"), /team\/app:9\.9\.9 has no manifest/);
    const none = new RegistryClient(parseImage(`${registry.host}/team/none`), {
      credentials: { username: "robot", password: "s3cret" },
    });
    await assert.rejects(none.tags(), /team\/none does not exist/);
  });
});
