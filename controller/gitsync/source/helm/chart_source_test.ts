/**
 * ChartSource against real servers: an https chart repository (node https with a test CA, serving
 * index.yaml and archives made by the pinned `helm package`) and the real CNCF registry with token auth
 * (a chart pushed as an OCI artifact, as `helm push` lays it out).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startRegistry, type TestRegistry } from "../../../../test/harness/registry.ts";
import { servingCertificate } from "../../../../test/harness/serving_cert.ts";
import { cachedBinary } from "../../../../scripts/testenv/go_build.ts";
import { HELM } from "../../../../scripts/testenv/servers.ts";
import { ChartSource, exactVersion } from "./chart_source.ts";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/helm/", import.meta.url));

let dir: string;
let ca: string;
let archive: Uint8Array;
let https: Server;
let origin: string;
const requests: { path: string; authorization?: string }[] = [];
let registry: TestRegistry;

before(async () => {
  const helm = cachedBinary(HELM);
  assert.ok(helm, "the pinned helm binary is missing: run `deno task testenv:build helm`");
  dir = await mkdtemp(join(tmpdir(), "chart-source-"));
  await promisify(execFile)(helm, ["package", join(FIXTURES, "umbrella"), "-d", dir], {
    env: { HOME: dir, PATH: "/usr/bin:/bin" },
  });
  archive = new Uint8Array(await readFile(join(dir, "umbrella-0.3.0.tgz")));
  const digest = createHash("sha256").update(archive).digest("hex");
  const { certFile, keyFile } = await servingCertificate(dir, "127.0.0.1");
  ca = await readFile(certFile, "utf8");
  const index = [
    "apiVersion: v1",
    "entries:",
    "  umbrella:",
    "    - version: 0.3.0",
    `      digest: ${digest}`,
    "      urls: [charts/umbrella-0.3.0.tgz]",
    "    - version: 0.2.0",
    `      digest: ${"1".repeat(64)}`,
    "      urls: [charts/umbrella-0.3.0.tgz]",
    "  big:",
    "    - version: 1.0.0",
    "      urls: [charts/big.tgz]",
    "",
  ].join("\n");
  https = createServer({ cert: await readFile(certFile), key: await readFile(keyFile) }, (req, res) => {
    requests.push({ path: req.url ?? "", authorization: req.headers.authorization });
    const auth = req.headers.authorization === `Basic ${Buffer.from("ci:pa55").toString("base64")}`;
    if (req.url?.startsWith("/private/") && !auth) {
      res.writeHead(401).end();
      return;
    }
    const path = (req.url ?? "").replace(/^\/(private|public)/, "");
    if (path === "/index.yaml") res.writeHead(200).end(index);
    else if (path === "/charts/umbrella-0.3.0.tgz") res.writeHead(200).end(archive);
    else if (path === "/charts/big.tgz") res.writeHead(200).end(Buffer.alloc(3 << 20));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
  registry = await startRegistry({ users: { robot: "s3cret" } });
});

after(async () => {
  https?.close();
  https?.closeAllConnections();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("https chart repositories", () => {
  test("the exact version's archive, checked against the index digest, unpacked", async () => {
    const source = new ChartSource({ ca });
    const files = await source.fetch("team", {
      repository: `${origin}/public`,
      name: "umbrella",
      version: "v0.3.0",
    });
    assert.ok(files.has("Chart.yaml") && files.has("charts/backend/templates/deployment.yaml"));
    assert.equal(files.size, 11);
  });

  test("credentials go to the repository's host; without them the repository refuses", async () => {
    const source = new ChartSource({ ca });
    const ref = { repository: `${origin}/private/`, name: "umbrella", version: "0.3.0" };
    await assert.rejects(
      source.fetch("team", ref),
      /index.yaml: refused \(HTTP 401\); check the chart's secretRef/,
    );
    requests.length = 0;
    const files = await source.fetch("team", ref, { username: "ci", password: "pa55" });
    assert.equal(files.size, 11);
    assert.deepEqual(requests.map((r) => r.path), [
      "/private/index.yaml",
      "/private/charts/umbrella-0.3.0.tgz",
    ]);
  });

  test("cached per namespace and credentials, bounded: another namespace fetches for itself", async () => {
    const source = new ChartSource({ ca });
    const ref = { repository: `${origin}/public`, name: "umbrella", version: "0.3.0" };
    requests.length = 0;
    await source.fetch("a", ref);
    await source.fetch("a", ref);
    assert.equal(requests.length, 2, "the second fetch in namespace a is served from the cache");
    await source.fetch("b", ref);
    assert.equal(requests.length, 4, "namespace b does not get namespace a's chart");
    // At most maxCharts are kept, the least recently used dropped, and a day unused drops one too.
    let now = 0;
    const small = new ChartSource({ ca, maxCharts: 1, now: () => now });
    requests.length = 0;
    await small.fetch("a", ref);
    now = 1;
    await small.fetch("b", ref);
    now = 2;
    await small.fetch("b", ref);
    assert.equal(requests.length, 4, "b stays cached");
    await small.fetch("a", ref);
    assert.equal(requests.length, 6, "a was dropped for b");
    now += 24 * 3600_000 + 1;
    await small.fetch("a", ref);
    assert.equal(requests.length, 8, "a day unused: fetched again");
  });

  test("refusals: ranges, unknown versions, digest mismatch, oversize index and archive, untrusted CA", async () => {
    const source = new ChartSource({ ca, maxArchiveBytes: 1 << 20, maxIndexBytes: 1 << 20 });
    const repository = `${origin}/public`;
    assert.throws(() => exactVersion("^1.2.0"), /not an exact SemVer \(ranges are refused\)/);
    await assert.rejects(
      source.fetch("t", { repository, name: "umbrella", version: ">=0.1.0" }),
      /ranges are refused/,
    );
    await assert.rejects(
      source.fetch("t", { repository, name: "umbrella", version: "9.9.9" }),
      /no version 9.9.9/,
    );
    await assert.rejects(
      source.fetch("t", { repository, name: "nope", version: "1.0.0" }),
      /no chart named nope/,
    );
    await assert.rejects(
      source.fetch("t", { repository, name: "umbrella", version: "0.2.0" }),
      /does not match the index's digest/,
    );
    await assert.rejects(
      source.fetch("t", { repository, name: "big", version: "1.0.0" }),
      /big-1.0.0.tgz: larger than 1048576 bytes/,
    );
    await assert.rejects(
      new ChartSource({ ca, maxIndexBytes: 100 }).fetch("t", {
        repository,
        name: "umbrella",
        version: "0.3.0",
      }),
      /index.yaml: larger than 100 bytes/,
    );
    await assert.rejects(
      new ChartSource().fetch("t", { repository, name: "umbrella", version: "0.3.0" }),
      /did not answer \(.*certificate/i,
    );
    await assert.rejects(
      source.fetch("t", { repository: "https://u:p@example.com/charts", name: "x", version: "1.0.0" }),
      /credentials in a chart repository URL are refused/,
    );
  });
});

describe("OCI registries (the real CNCF registry, token auth)", () => {
  test("oci://host/path + name: the tag's chart layer, through the token service", async () => {
    await registry.pushHelmChart("charts/umbrella", "0.3.0", archive, {
      name: "umbrella",
      version: "0.3.0",
      apiVersion: "v2",
    });
    const granted = registry.tokenRequests.granted;
    const files = await new ChartSource().fetch(
      "team",
      { repository: `oci://${registry.host}/charts`, name: "umbrella", version: "0.3.0" },
      { username: "robot", password: "s3cret" },
    );
    assert.equal(files.size, 11);
    assert.ok(registry.tokenRequests.granted > granted, "a token was fetched from the registry's realm");
  });

  test("wrong credentials, a missing tag and an image that is not a chart are clear failures", async () => {
    const repository = `oci://${registry.host}/charts`;
    await assert.rejects(
      new ChartSource().fetch("t", { repository, name: "umbrella", version: "0.3.0" }, {
        username: "robot",
        password: "wrong",
      }),
      /token service refused \(HTTP 401\)/,
    );
    await assert.rejects(
      new ChartSource().fetch("t", { repository, name: "umbrella", version: "1.0.0" }, {
        username: "robot",
        password: "s3cret",
      }),
      /umbrella:1.0.0 does not exist/,
    );
    await registry.pushImage("charts/app", "1.0.0");
    await assert.rejects(
      new ChartSource().fetch("t", { repository, name: "app", version: "1.0.0" }, {
        username: "robot",
        password: "s3cret",
      }),
      /is not a Helm chart/,
    );
  });
});
