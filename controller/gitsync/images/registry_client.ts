/**
 * A client for the OCI distribution API (the protocol of Docker Hub, GHCR, Harbor, ECR, the CNCF
 * registry): the tags of a repository (`GET /v2/<name>/tags/list`, paged through `Link` headers) and
 * a tag's manifest digest (`HEAD /v2/<name>/manifests/<tag>`, `Docker-Content-Digest`), and a Helm chart
 * pushed as an OCI artifact (its manifest, then the chart layer's blob, capped and digest-checked).
 *
 * Authentication follows the registry's challenge: anonymous first; on `401` with
 * `WWW-Authenticate: Bearer realm=…,service=…,scope=…` a token is fetched from the realm (with basic
 * credentials from the dockerconfigjson Secret when there are any) and cached until it expires; on a
 * `Basic` challenge the credentials go along directly. Requests to one host are rate-limited (seed
 * section 8). Registries on a loopback address are spoken to over plain HTTP, as Docker's default
 * insecure-registries (127.0.0.0/8) are; every other registry over HTTPS.
 * Credentials never appear in errors.
 */
import { createHash } from "node:crypto";
import { type HostLimiter, hostLimiter } from "./host_limiter.ts";

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface ImageRef {
  /** Host (and port) to connect to, e.g. registry-1.docker.io or 127.0.0.1:5000. */
  host: string;
  /** Repository path inside the registry, e.g. library/nginx. */
  path: string;
  /** The key a dockerconfigjson `auths` entry is looked up by. */
  configKeys: string[];
}

export class RegistryError extends Error {
  override name = "RegistryError";
  constructor(message: string, readonly reason: "AuthenticationFailure" | "ScanFailed" = "ScanFailed") {
    super(message);
  }
}

/** Parses `registry.example.com/team/app`, `nginx`, `ghcr.io/o/r` into where to connect and what to ask. */
export function parseImage(image: string): ImageRef {
  const last = image.split("/").pop()!;
  if (!/^[a-z0-9][a-z0-9._\-/:\[\]]*$/i.test(image) || /[:@]/.test(last) || image.endsWith("/")) {
    throw new RegistryError(
      `spec.image "${image}" is not an image repository (no tag or digest: they are chosen)`,
    );
  }
  const [first, ...rest] = image.split("/");
  const isHost = rest.length > 0 && (/[.:]/.test(first!) || first === "localhost");
  if (!isHost || first === "docker.io" || first === "index.docker.io") {
    const path = isHost ? rest.join("/") : image;
    return {
      host: "registry-1.docker.io",
      path: path.includes("/") ? path : `library/${path}`,
      configKeys: ["https://index.docker.io/v1/", "index.docker.io", "docker.io", "registry-1.docker.io"],
    };
  }
  return { host: first!, path: rest.join("/"), configKeys: [first!, `https://${first}`, `http://${first}`] };
}

/** The credentials for a host from a `.dockerconfigjson` document (auths.<host>.{username,password|auth}). */
export function credentialsFor(dockerConfigJson: string, ref: ImageRef): RegistryCredentials | undefined {
  let config: { auths?: Record<string, { username?: string; password?: string; auth?: string }> };
  try {
    config = JSON.parse(dockerConfigJson);
  } catch {
    throw new RegistryError(
      "the registry credentials Secret's .dockerconfigjson is not JSON",
      "AuthenticationFailure",
    );
  }
  const auths = config.auths ?? {};
  const entry = ref.configKeys.map((k) => auths[k] ?? auths[k.replace(/\/+$/, "")]).find(Boolean);
  if (!entry) return undefined;
  if (entry.username !== undefined && entry.password !== undefined) {
    return { username: entry.username, password: entry.password };
  }
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const i = decoded.indexOf(":");
    if (i > 0) return { username: decoded.slice(0, i), password: decoded.slice(i + 1) };
  }
  return undefined;
}

const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** The layer of a Helm chart pushed to an OCI registry. */
export const HELM_CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/** A response body, refused beyond maxBytes without reading the rest. */
async function readCapped(res: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body?.cancel();
    throw new RegistryError(`${what} is larger than ${maxBytes} bytes`);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new RegistryError(`${what} is larger than ${maxBytes} bytes`);
    }
    parts.push(chunk);
  }
  return new Uint8Array(Buffer.concat(parts));
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

/** Parameters of a `WWW-Authenticate` challenge: `Bearer realm="…",service="…"`. */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const scheme = header.trim().split(/\s+/, 1)[0] ?? "";
  const params: Record<string, string> = {};
  for (const m of header.slice(scheme.length).matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) params[m[1]!] = m[2]!;
  return { scheme: scheme.toLowerCase(), params };
}

export interface RegistryClientOptions {
  credentials?: RegistryCredentials;
  /** Per-host limiter shared by all scans (default: 10 requests per second, burst 20). */
  limiter?: HostLimiter;
  /** Most tags read (pages stop there); default 10,000. */
  maxTags?: number;
  /** Tags asked for per page; default 1,000. */
  pageSize?: number;
  timeoutMs?: number;
}

const defaultLimiter = hostLimiter({ perSecond: 10, burst: 20 });

export class RegistryClient {
  private token?: { value: string; expires: number };
  private readonly base: string;
  private readonly limiter: HostLimiter;

  constructor(readonly ref: ImageRef, private readonly o: RegistryClientOptions = {}) {
    this.base = `${LOOPBACK.test(ref.host) ? "http" : "https"}://${ref.host}`;
    this.limiter = o.limiter ?? defaultLimiter;
  }

  /** Every tag of the repository (at most maxTags), in the registry's order. */
  async tags(): Promise<string[]> {
    const max = this.o.maxTags ?? 10_000;
    const tags: string[] = [];
    let next: string | undefined = `/v2/${this.ref.path}/tags/list?n=${this.o.pageSize ?? 1000}`;
    while (next && tags.length < max) {
      const res = await this.request("GET", next);
      if (res.status === 404) throw new RegistryError(`${this.where()} does not exist in the registry`);
      if (!res.ok) throw await this.failure(res, "listing tags");
      const body = await res.json() as { tags?: string[] | null };
      tags.push(...(body.tags ?? []));
      const link = res.headers.get("link");
      next = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1] : undefined;
      if (next && /^https?:/.test(next)) {
        const u = new URL(next);
        if (u.host !== this.ref.host) {
          throw new RegistryError(`${this.where()}: the registry paged to another host`);
        }
        next = u.pathname + u.search;
      }
    }
    return tags.slice(0, max);
  }

  /** The digest of the tag's manifest (an index for multi-arch images), as the registry names it. */
  async digest(tag: string): Promise<string> {
    const path = `/v2/${this.ref.path}/manifests/${encodeURIComponent(tag)}`;
    const res = await this.request("HEAD", path, { accept: MANIFEST_TYPES });
    if (res.status === 404) throw new RegistryError(`${this.where()}:${tag} has no manifest`);
    if (!res.ok) throw await this.failure(res, `reading the manifest of ${tag}`);
    const digest = res.headers.get("docker-content-digest");
    if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) {
      throw new RegistryError(`${this.where()}:${tag}: the registry gave no sha256 manifest digest`);
    }
    return digest;
  }

  /**
   * The chart archive of a Helm chart pushed as an OCI artifact (`helm push`): the tag's manifest, its
   * layer of type application/vnd.cncf.helm.chart.content.v1.tar+gzip, at most maxBytes, sha256 checked.
   */
  async helmChart(tag: string, maxBytes: number): Promise<Uint8Array> {
    const path = `/v2/${this.ref.path}/manifests/${encodeURIComponent(tag)}`;
    const res = await this.request("GET", path, { accept: "application/vnd.oci.image.manifest.v1+json" });
    if (res.status === 404) throw new RegistryError(`${this.where()}:${tag} does not exist`);
    if (!res.ok) throw await this.failure(res, `reading the manifest of ${tag}`);
    const manifest = JSON.parse(new TextDecoder().decode(await readCapped(res, 4 << 20, "the manifest"))) as {
      layers?: { mediaType?: string; digest?: string; size?: number }[];
    };
    const layer = manifest.layers?.find((l) => l.mediaType === HELM_CHART_LAYER);
    if (!layer?.digest || !/^sha256:[0-9a-f]{64}$/.test(layer.digest)) {
      throw new RegistryError(`${this.where()}:${tag} is not a Helm chart (no ${HELM_CHART_LAYER} layer)`);
    }
    if ((layer.size ?? 0) > maxBytes) {
      throw new RegistryError(`${this.where()}:${tag}: the chart is larger than ${maxBytes} bytes`);
    }
    const blob = await this.request("GET", `/v2/${this.ref.path}/blobs/${layer.digest}`);
    if (!blob.ok) throw await this.failure(blob, `reading the chart layer of ${tag}`);
    const bytes = await readCapped(blob, maxBytes, "the chart");
    if (`sha256:${createHash("sha256").update(bytes).digest("hex")}` !== layer.digest) {
      throw new RegistryError(`${this.where()}:${tag}: the chart layer does not match its digest`);
    }
    return bytes;
  }

  private where() {
    return `${this.ref.host}/${this.ref.path}`;
  }

  private async failure(res: Response, what: string): Promise<RegistryError> {
    await res.body?.cancel();
    if (res.status === 401 || res.status === 403) {
      return new RegistryError(
        `${this.where()}: ${what} was refused (HTTP ${res.status}); check spec.secretRef`,
        "AuthenticationFailure",
      );
    }
    return new RegistryError(`${this.where()}: ${what} failed with HTTP ${res.status}`);
  }

  private async request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const send = async (authorization?: string) => {
      await this.limiter.wait(this.ref.host);
      try {
        return await fetch(this.base + path, {
          method,
          headers: { ...headers, ...(authorization ? { authorization } : {}) },
          redirect: "follow",
          signal: AbortSignal.timeout(this.o.timeoutMs ?? 30_000),
        });
      } catch (err) {
        throw new RegistryError(`${this.where()}: the registry did not answer (${(err as Error).message})`);
      }
    };
    if (this.token && this.token.expires > Date.now()) {
      const res = await send(`Bearer ${this.token.value}`);
      if (res.status !== 401) return res;
      await res.body?.cancel();
    }
    const first = await send();
    if (first.status !== 401) return first;
    const challenge = parseChallenge(first.headers.get("www-authenticate") ?? "");
    await first.body?.cancel();
    const c = this.o.credentials;
    if (challenge.scheme === "basic") {
      if (!c) return first;
      return await send(`Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}`);
    }
    if (challenge.scheme !== "bearer" || !challenge.params.realm) return first;
    await this.fetchToken(challenge.params);
    return await send(`Bearer ${this.token!.value}`);
  }

  /** A token from the registry's token service, for pulling this repository. */
  private async fetchToken(params: Record<string, string>): Promise<void> {
    const realm = new URL(params.realm!);
    if (realm.protocol !== "https:" && !(realm.protocol === "http:" && LOOPBACK.test(realm.host))) {
      throw new RegistryError(`${this.where()}: the registry's token service is not HTTPS`);
    }
    if (params.service) realm.searchParams.set("service", params.service);
    realm.searchParams.set("scope", params.scope ?? `repository:${this.ref.path}:pull`);
    const c = this.o.credentials;
    await this.limiter.wait(realm.host);
    let res: Response;
    try {
      res = await fetch(realm, {
        headers: c
          ? { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}` }
          : {},
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new RegistryError(
        `${this.where()}: the token service did not answer (${(err as Error).message})`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new RegistryError(
        `${this.where()}: the token service refused (HTTP ${res.status}); check spec.secretRef`,
        "AuthenticationFailure",
      );
    }
    const body = await res.json() as { token?: string; access_token?: string; expires_in?: number };
    const value = body.token ?? body.access_token;
    if (!value) throw new RegistryError(`${this.where()}: the token service gave no token`);
    // Renew a little early; the spec's default lifetime is 60 s.
    this.token = { value, expires: Date.now() + Math.max(10, (body.expires_in ?? 60) - 10) * 1000 };
  }
}
