/**
 * A real OCI registry for tests: the CNCF distribution registry (built from its Go module by the test
 * command; scripts/testenv/servers.ts REGISTRY) on a free loopback port with in-memory storage and
 * token authentication, the scheme Docker Hub, GHCR and Harbor use. The token service beside it is
 * ours, speaking the documented protocol (GET <realm>?service=…&scope=…, basic credentials, JSON
 * `{token}`; an ES256 JWT with the `access` claim and an x5c header the registry verifies against
 * its root certificate bundle).
 *
 *   const registry = await startRegistry({ users: { robot: "s3cret" } });
 *   const digest = await registry.pushImage("team/app", "1.2.0");
 *   // registry.host = 127.0.0.1:<port>; image 127.0.0.1:<port>/team/app
 *   await registry.stop();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, createPrivateKey, randomUUID, sign, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { cachedBinary } from "../../scripts/testenv/go_build.ts";
import { REGISTRY } from "../../scripts/testenv/servers.ts";
import { servingCertificate } from "./serving_cert.ts";

export const registryBinary = cachedBinary(REGISTRY);

export interface TestRegistry {
  /** 127.0.0.1:<port>: the image prefix. */
  host: string;
  /** Pushes a small image (one layer, a config) under `tag`; returns its manifest digest. */
  pushImage(repository: string, tag: string): Promise<string>;
  /**
   * Pushes a chart archive (.tgz) as `helm push` does: config application/vnd.cncf.helm.config.v1+json
   * (the Chart.yaml metadata as JSON), one layer application/vnd.cncf.helm.chart.content.v1.tar+gzip.
   */
  pushHelmChart(
    repository: string,
    tag: string,
    tgz: Uint8Array,
    metadata: Record<string, unknown>,
  ): Promise<string>;
  /** Requests the token service answered, by outcome. */
  tokenRequests: { granted: number; refused: number };
  stop(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");
const sha256 = (b: Buffer | string) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`registry exited: ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1", () => (s.end(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`registry did not listen on ${port}: ${log()}`);
}

export async function startRegistry(
  options: {
    users?: Record<string, string>;
    /**
     * The token realm's host. crane (go-containerregistry) refuses a realm on a private IP literal other than
     * the registry's own host:port, so its tests name the loopback by name: "localhost".
     */
    realmHost?: string;
    /** Keep blobs on disk: the in-memory driver copies a blob on every write, minutes for 100 MB layers. */
    onDisk?: boolean;
  } = {},
): Promise<TestRegistry> {
  if (!registryBinary) throw new Error("the registry is not built: run `deno task testenv:build registry`");
  const dir = await mkdtemp(join(tmpdir(), "registry-"));
  const { certFile, keyFile } = await servingCertificate(dir, "token-issuer");
  const key = createPrivateKey(await readFile(keyFile));
  const certDer = new X509Certificate(await readFile(certFile)).raw;
  const service = "test-registry";
  const issuer = "test-token-issuer";
  const tokenRequests = { granted: 0, refused: 0 };

  const issue = (subject: string, scope: string | null) => {
    const access = (scope ?? "").split(" ").filter(Boolean).map((s) => {
      const [type, name, actions] = s.split(":");
      return { type, name, actions: (actions ?? "").split(",") };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: "ES256", typ: "JWT", x5c: [certDer.toString("base64")] };
    const claims = {
      iss: issuer,
      sub: subject,
      aud: service,
      iat: now,
      nbf: now - 5,
      exp: now + 300,
      jti: randomUUID(),
      access,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
    return `${input}.${b64url(signature)}`;
  };

  const tokens: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const [user, pass] = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64")
      .toString().split(":");
    const allowed = options.users ? options.users[user ?? ""] === pass && pass !== undefined : true;
    if (url.pathname !== "/token" || url.searchParams.get("service") !== service || !allowed) {
      tokenRequests.refused++;
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
      return;
    }
    tokenRequests.granted++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ token: issue(user || "anonymous", url.searchParams.get("scope")), expires_in: 300 }),
    );
  });
  await new Promise<void>((resolve) => tokens.listen(0, "127.0.0.1", resolve));
  const tokenPort = (tokens.address() as AddressInfo).port;

  const port = await freePort();
  const config = join(dir, "config.yml");
  await writeFile(
    config,
    [
      "version: 0.1",
      "log: {level: error, accesslog: {disabled: true}}",
      options.onDisk
        ? `storage: {filesystem: {rootdirectory: "${join(dir, "storage")}"}, delete: {enabled: true}}`
        : "storage: {inmemory: {}, delete: {enabled: true}}",
      `http: {addr: "127.0.0.1:${port}", secret: "${randomUUID()}"}`,
      "auth:",
      "  token:",
      `    realm: "http://${options.realmHost ?? "127.0.0.1"}:${tokenPort}/token"`,
      `    service: "${service}"`,
      `    issuer: "${issuer}"`,
      `    rootcertbundle: "${certFile}"`,
      "",
    ].join("\n"),
  );
  let output = "";
  const child = spawn(registryBinary, ["serve", config], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin", OTEL_TRACES_EXPORTER: "none" },
  });
  child.stdout!.on("data", (d) => (output = (output + d).slice(-4000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-4000)));
  await waitForPort(port, child, () => output);
  const base = `http://127.0.0.1:${port}`;

  async function push(repository: string, path: string, init: RequestInit): Promise<Response> {
    const token = issue("pusher", `repository:${repository}:pull,push`);
    const res = await fetch(path.startsWith("http") ? path : base + path, {
      ...init,
      headers: { ...init.headers as Record<string, string>, authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw new Error(`registry ${init.method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return res;
  }
  async function uploadBlob(repository: string, content: Buffer): Promise<string> {
    const digest = sha256(content);
    const started = await push(repository, `/v2/${repository}/blobs/uploads/`, { method: "POST" });
    await started.body?.cancel();
    const location = new URL(started.headers.get("location")!, base);
    location.searchParams.set("digest", digest);
    const done = await push(repository, location.toString(), {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(content),
    });
    await done.body?.cancel();
    return digest;
  }

  async function putManifest(repository: string, tag: string, manifest: string): Promise<string> {
    const res = await push(repository, `/v2/${repository}/manifests/${tag}`, {
      method: "PUT",
      headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
      body: manifest,
    });
    await res.body?.cancel();
    return res.headers.get("docker-content-digest") ?? sha256(manifest);
  }

  return {
    host: `127.0.0.1:${port}`,
    tokenRequests,
    async pushHelmChart(repository, tag, tgz, metadata) {
      const config = Buffer.from(JSON.stringify(metadata));
      const layer = Buffer.from(tgz);
      const configDigest = await uploadBlob(repository, config);
      const layerDigest = await uploadBlob(repository, layer);
      return await putManifest(
        repository,
        tag,
        JSON.stringify({
          schemaVersion: 2,
          config: {
            mediaType: "application/vnd.cncf.helm.config.v1+json",
            digest: configDigest,
            size: config.length,
          },
          layers: [{
            mediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
            digest: layerDigest,
            size: layer.length,
          }],
          annotations: { "org.opencontainers.image.title": String(metadata.name) },
        }),
      );
    },
    async pushImage(repository, tag) {
      const layer = Buffer.from(`layer of ${repository}:${tag} ${randomUUID()}`);
      const configBlob = Buffer.from(
        JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [] } }),
      );
      const layerDigest = await uploadBlob(repository, layer);
      const configDigest = await uploadBlob(repository, configBlob);
      const manifest = JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: configDigest,
          size: configBlob.length,
        },
        layers: [{
          mediaType: "application/vnd.oci.image.layer.v1.tar",
          digest: layerDigest,
          size: layer.length,
        }],
      });
      const res = await push(repository, `/v2/${repository}/manifests/${tag}`, {
        method: "PUT",
        headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
        body: manifest,
      });
      await res.body?.cancel();
      return res.headers.get("docker-content-digest") ?? sha256(manifest);
    },
    async stop() {
      child.kill();
      await new Promise<void>((resolve) => tokens.close(() => resolve()));
      tokens.closeAllConnections?.();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
