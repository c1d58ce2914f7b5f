/**
 * OCI images of the servers, built without Docker: for each architecture a base layer of Debian packages
 * (debian.ts) with the accounts and directories a non-root, read-only-root container needs, and a layer
 * with the linux executable; both architectures under one image index, written as an OCI image layout in
 * dist/release/oci/<tool>/ that crane pushes (push.ts). Every timestamp is the release's epoch, members
 * are sorted, gzip carries no name or time, JSON has a fixed key order: the same inputs give the same
 * digests.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type TarEntry, writeTar } from "../lib/tar.ts";
import { BASE_PACKAGES, caBundle, debianPackages, wantedInImage } from "./debian.ts";
import { type Target, TARGETS } from "./targets.ts";

export const IMAGE_TOOLS = ["memsvc", "vault", "gitsync-manager"] as const;
export type ImageTool = (typeof IMAGE_TOOLS)[number];

/** The account the containers run as (distroless's `nonroot`). */
export const NONROOT = 65532;

/**
 * Per server: the command, the port, and where it writes (a volume, so the root file system can be
 * read-only; /tmp is one too, for the files Bun and onnxruntime unpack at start).
 */
const SERVERS: Record<ImageTool, { cmd: string[]; port?: number; env: string[]; dataDir?: string }> = {
  memsvc: {
    cmd: ["serve"],
    port: 7778,
    env: ["MEMSVC_HOST=0.0.0.0", "MEMSVC_DATA_DIR=/var/lib/memsvc"],
    dataDir: "var/lib/memsvc",
  },
  vault: {
    cmd: ["serve"],
    port: 7779,
    env: ["VAULT_HOST=0.0.0.0", "VAULT_DATA_DIR=/var/lib/vault/notes", "DATABASE_URL=/var/lib/vault/db"],
    dataDir: "var/lib/vault",
  },
  "gitsync-manager": { cmd: ["run"], env: [] },
};

export const MEDIA = {
  index: "application/vnd.oci.image.index.v1+json",
  manifest: "application/vnd.oci.image.manifest.v1+json",
  config: "application/vnd.oci.image.config.v1+json",
  layer: "application/vnd.oci.image.layer.v1.tar+gzip",
} as const;

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}

export interface ImageOptions {
  tools: readonly ImageTool[];
  targets: readonly Target[];
  /** The linux executable of `tool` for `target`. */
  binary: (tool: ImageTool, target: Target) => string;
  out: string;
  version: string;
  commit: string;
  epoch: number;
  source: string;
  log: (line: string) => void;
}

const sha256 = (b: Uint8Array) => `sha256:${createHash("sha256").update(b).digest("hex")}`;
const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const text = (s: string) => new TextEncoder().encode(s);

/** A gzipped layer and the digest of its uncompressed tar (the config's diff_id). */
function layer(entries: TarEntry[], epoch: number): { blob: Uint8Array; diffId: string } {
  const tar = writeTar(entries, epoch);
  return { blob: gzipSync(tar, { level: 6 }), diffId: sha256(tar) };
}

/** The base file system for one architecture: packages, accounts, CA bundle, writable /tmp and home. */
async function baseEntries(debianArch: string, log: (line: string) => void): Promise<TarEntry[]> {
  const packages = await debianPackages(debianArch, BASE_PACKAGES, log);
  const byPath = new Map<string, TarEntry>();
  for (const p of packages) {
    for (const e of p.entries) if (wantedInImage(e.path)) byPath.set(e.path, { ...e, uid: 0, gid: 0 });
  }
  // Hardlinks become copies: members are sorted below, and a link may not precede its target.
  for (const [path, e] of byPath) {
    if (e.type !== "hardlink") continue;
    const target = byPath.get(e.linkname!);
    if (target?.type !== "file") throw new Error(`${path}: hardlink to missing ${e.linkname}`);
    byPath.set(path, { path, type: "file", mode: e.mode, uid: 0, gid: 0, data: target.data });
  }
  const add = (e: TarEntry) => byPath.set(e.path, { uid: 0, gid: 0, ...e });
  const dir = (path: string, mode = 0o755, owner = 0) =>
    add({ path, type: "dir", mode, uid: owner, gid: owner });
  for (const d of ["etc", "etc/ssl", "etc/ssl/certs", "home", "var", "var/lib", "var/lib/dpkg"]) dir(d);
  dir("var/lib/dpkg/status.d");
  dir("tmp", 0o1777);
  dir("home/nonroot", 0o700, NONROOT);
  add({
    path: "etc/passwd",
    type: "file",
    mode: 0o644,
    data: text(
      `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT}:${NONROOT}:nonroot:/home/nonroot:/sbin/nologin\n`,
    ),
  });
  add({ path: "etc/group", type: "file", mode: 0o644, data: text(`root:x:0:\nnonroot:x:${NONROOT}:\n`) });
  add({
    path: "etc/nsswitch.conf",
    type: "file",
    mode: 0o644,
    data: text("passwd: files\ngroup: files\nhosts: files dns\n"),
  });
  add({
    path: "etc/ssl/certs/ca-certificates.crt",
    type: "file",
    mode: 0o644,
    data: caBundle([...byPath.values()]),
  });
  // What each package is, where image scanners look for it (as distroless images do).
  for (const p of packages) {
    add({ path: `var/lib/dpkg/status.d/${p.name}`, type: "file", mode: 0o644, data: text(p.control) });
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function appEntries(tool: ImageTool, executable: Uint8Array): TarEntry[] {
  const { dataDir } = SERVERS[tool];
  const dirs = ["usr", "usr/local", "usr/local/bin"].map((path) => ({
    path,
    type: "dir" as const,
    mode: 0o755,
  }));
  return [
    ...dirs,
    { path: `usr/local/bin/${tool}`, type: "file", mode: 0o755, data: executable },
    ...(dataDir ? [{ path: dataDir, type: "dir" as const, mode: 0o700, uid: NONROOT, gid: NONROOT }] : []),
  ];
}

class Layout {
  constructor(readonly dir: string) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "blobs", "sha256"), { recursive: true });
  }
  blob(mediaType: string, bytes: Uint8Array, extra: Partial<Descriptor> = {}): Descriptor {
    const digest = sha256(bytes);
    writeFileSync(join(this.dir, "blobs", "sha256", digest.slice(7)), bytes);
    return { mediaType, digest, size: bytes.length, ...extra };
  }
  finish(index: Descriptor, ref: string) {
    writeFileSync(join(this.dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    writeFileSync(
      join(this.dir, "index.json"),
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA.index,
        manifests: [{ ...index, annotations: { "org.opencontainers.image.ref.name": ref } }],
      }),
    );
  }
}

/** Writes oci/<tool>/ for each tool; returns tool => the image index's digest. */
export async function buildImages(o: ImageOptions): Promise<Record<string, string>> {
  const created = new Date(o.epoch * 1000).toISOString().replace(/\.000Z$/, "Z");
  const digests: Record<string, string> = {};
  const bases = new Map<Target, ReturnType<typeof layer>>();
  for (const target of o.targets) {
    const arch = TARGETS[target].debian;
    if (!arch) throw new Error(`no image for ${target}: images are linux only`);
    bases.set(target, layer(await baseEntries(arch, o.log), o.epoch));
  }
  for (const tool of o.tools) {
    const annotations = {
      "org.opencontainers.image.created": created,
      "org.opencontainers.image.description": `${tool} ${o.version}`,
      "org.opencontainers.image.licenses": "Apache-2.0",
      "org.opencontainers.image.revision": o.commit,
      "org.opencontainers.image.source": o.source,
      "org.opencontainers.image.title": tool,
      "org.opencontainers.image.version": o.version,
    };
    const layout = new Layout(join(o.out, tool));
    const manifests: Descriptor[] = [];
    for (const target of o.targets) {
      const arch = TARGETS[target].debian!;
      const base = bases.get(target)!;
      const app = layer(appEntries(tool, new Uint8Array(readFileSync(o.binary(tool, target)))), o.epoch);
      const server = SERVERS[tool];
      const config = {
        created,
        architecture: arch,
        os: "linux",
        config: {
          User: `${NONROOT}:${NONROOT}`,
          Env: [
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "HOME=/home/nonroot",
            "TMPDIR=/tmp",
            "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
            ...server.env,
          ],
          Entrypoint: [`/usr/local/bin/${tool}`],
          Cmd: server.cmd,
          WorkingDir: "/home/nonroot",
          ...(server.port ? { ExposedPorts: { [`${server.port}/tcp`]: {} } } : {}),
          Volumes: Object.fromEntries(
            ["/tmp", ...(server.dataDir ? [`/${server.dataDir}`] : [])].map((v) => [v, {}]),
          ),
          Labels: annotations,
        },
        rootfs: { type: "layers", diff_ids: [base.diffId, app.diffId] },
        history: [
          { created, created_by: `debian packages: ${BASE_PACKAGES.join(" ")}` },
          { created, created_by: `${tool} ${o.version} (${o.commit})` },
        ],
      };
      const configDesc = layout.blob(MEDIA.config, json(config));
      const manifest = {
        schemaVersion: 2,
        mediaType: MEDIA.manifest,
        config: configDesc,
        layers: [layout.blob(MEDIA.layer, base.blob), layout.blob(MEDIA.layer, app.blob)],
        annotations,
      };
      manifests.push(
        layout.blob(MEDIA.manifest, json(manifest), { platform: { architecture: arch, os: "linux" } }),
      );
    }
    const index = layout.blob(
      MEDIA.index,
      json({ schemaVersion: 2, mediaType: MEDIA.index, manifests, annotations }),
    );
    layout.finish(index, o.version);
    digests[tool] = index.digest;
    o.log(`image ${tool} (${o.targets.map((t) => TARGETS[t].debian).join(", ")}): ${index.digest}`);
  }
  return digests;
}
