/**
 * Charts from chart repositories (spec.source.render.helm.chart, seed sections 2 and 8):
 *
 * - https:// repositories: `index.yaml` (capped, default 10 MiB), the entry of the exact version
 *   (SemVer; a leading `v` on either side is ignored; ranges are refused), its first URL resolved
 *   against the repository, the archive (capped, default 20 MiB) checked against the index's digest.
 *   Credentials (basic) go only to the repository's host; a redirect to another host drops them.
 * - oci:// repositories: `oci://host/path` + name is the OCI repository `host/path/name`, the tag is the
 *   version (`+` written `_`, as Helm pushes it); the manifest's layer of type
 *   application/vnd.cncf.helm.chart.content.v1.tar+gzip is the archive. The registry's challenge and
 *   token logic is images/registry_client.ts's.
 *
 * Archives are unpacked in memory with chart_archive.ts's caps. Charts are cached per namespace and
 * credentials (a chart fetched with one namespace's Secret is never served to another namespace), at
 * most 64 of them (least recently used dropped first), and dropped after a day unused (seed section 8 and the source cache row of the limits table).
 * Helm's local repository configuration, cached credentials and plugins are never read.
 */
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { parse as parseYaml } from "yaml";
import { parseImage, RegistryClient, type RegistryCredentials } from "../../images/registry_client.ts";
import { type ChartArchiveLimits, unpackChart } from "./chart_archive.ts";

export class ChartSourceError extends Error {
  override name = "ChartSourceError";
}

export interface ChartRef {
  /** oci:// or https:// URL of the repository. */
  repository: string;
  name: string;
  /** Exact SemVer, a leading v allowed. */
  version: string;
}

export interface ChartCredentials {
  username: string;
  password: string;
}

export interface ChartSourceOptions extends ChartArchiveLimits {
  /** Most bytes of index.yaml; default 10 MiB. */
  maxIndexBytes?: number;
  /** Most bytes of a chart archive (compressed); default 20 MiB. */
  maxArchiveBytes?: number;
  /** Per request; default 60 s. */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) for https repositories, e.g. a private CA. */
  ca?: string;
  /** Unused cached charts are dropped after this long; default one day. */
  keepMs?: number;
  /** Most charts kept; the least recently used goes first; default 64. */
  maxCharts?: number;
  now?: () => number;
}

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** The version without a leading v; ranges and anything else but an exact SemVer are refused. */
export function exactVersion(version: string): string {
  if (!SEMVER.test(version)) {
    throw new ChartSourceError(`chart version "${version}" is not an exact SemVer (ranges are refused)`);
  }
  return version.replace(/^v/, "");
}

interface Cached {
  files: Map<string, Uint8Array>;
  used: number;
}

export class ChartSource {
  private readonly cache = new Map<string, Cached>();
  private readonly now: () => number;

  constructor(private readonly o: ChartSourceOptions = {}) {
    this.now = o.now ?? Date.now;
  }

  /** The chart's files, relative to its root; from the cache when this namespace fetched it with these credentials. */
  async fetch(
    namespace: string,
    ref: ChartRef,
    credentials?: ChartCredentials,
  ): Promise<Map<string, Uint8Array>> {
    const version = exactVersion(ref.version);
    if (/^[a-z]+:\/\/[^/]*@/i.test(ref.repository)) {
      throw new ChartSourceError(
        "credentials in a chart repository URL are refused: use the chart's secretRef",
      );
    }
    this.prune();
    const key = createHash("sha256")
      .update(
        JSON.stringify([
          namespace,
          ref.repository.replace(/\/+$/, ""),
          ref.name,
          version,
          credentials ?? null,
        ]),
      )
      .digest("hex");
    const hit = this.cache.get(key);
    if (hit) {
      hit.used = this.now();
      return new Map(hit.files);
    }
    const archive = ref.repository.startsWith("oci://")
      ? await this.fromOci(ref, version, credentials)
      : ref.repository.startsWith("https://")
      ? await this.fromHttps(ref, version, credentials)
      : (() => {
        throw new ChartSourceError(
          `chart repository ${ref.repository}: only oci:// and https:// are supported`,
        );
      })();
    let files;
    try {
      files = unpackChart(archive, this.o);
    } catch (err) {
      throw new ChartSourceError(`chart ${ref.name} ${version}: ${(err as Error).message}`);
    }
    this.cache.set(key, { files, used: this.now() });
    const max = this.o.maxCharts ?? 64;
    while (this.cache.size > max) {
      const oldest = [...this.cache].reduce((a, b) => (b[1].used < a[1].used ? b : a));
      this.cache.delete(oldest[0]);
    }
    return new Map(files);
  }

  /** Drops charts unused for longer than keepMs. */
  prune(): void {
    const keep = this.o.keepMs ?? 24 * 3600_000;
    for (const [k, c] of this.cache) if (this.now() - c.used > keep) this.cache.delete(k);
  }

  private async fromHttps(
    ref: ChartRef,
    version: string,
    credentials?: ChartCredentials,
  ): Promise<Uint8Array> {
    const base = new URL(ref.repository.replace(/\/*$/, "/"));
    const where = `chart repository ${base.origin}${base.pathname}`;
    const indexBytes = await this.get(new URL("index.yaml", base), base.host, credentials, {
      maxBytes: this.o.maxIndexBytes ?? 10 << 20,
      what: `${where}: index.yaml`,
    });
    let index: { entries?: Record<string, { version?: string; urls?: string[]; digest?: string }[]> };
    try {
      // Every scalar a string (failsafe schema), as Helm reads the index into string fields: 1.10 stays 1.10.
      index = parseYaml(new TextDecoder().decode(indexBytes), { maxAliasCount: 100, schema: "failsafe" }) ??
        {};
    } catch (err) {
      throw new ChartSourceError(`${where}: index.yaml is not YAML (${(err as Error).message})`);
    }
    const entries = index.entries?.[ref.name];
    if (!Array.isArray(entries)) throw new ChartSourceError(`${where} has no chart named ${ref.name}`);
    const entry = entries.find((e) =>
      typeof e?.version === "string" && e.version.replace(/^v/, "") === version
    );
    if (!entry) throw new ChartSourceError(`${where} has no version ${version} of chart ${ref.name}`);
    const first = entry.urls?.[0];
    if (typeof first !== "string") throw new ChartSourceError(`${where}: ${ref.name} ${version} has no URL`);
    const url = new URL(first, base);
    if (url.protocol !== "https:") {
      throw new ChartSourceError(
        `${where}: ${ref.name} ${version} is served over ${url.protocol}, not https:`,
      );
    }
    const archive = await this.get(url, base.host, credentials, {
      maxBytes: this.o.maxArchiveBytes ?? 20 << 20,
      what: `${where}: ${ref.name}-${version}.tgz`,
    });
    if (typeof entry.digest === "string" && entry.digest) {
      const got = createHash("sha256").update(archive).digest("hex");
      if (got !== entry.digest.replace(/^sha256:/, "")) {
        throw new ChartSourceError(`${where}: ${ref.name}-${version}.tgz does not match the index's digest`);
      }
    }
    return archive;
  }

  private async fromOci(
    ref: ChartRef,
    version: string,
    credentials?: RegistryCredentials,
  ): Promise<Uint8Array> {
    const repo = `${ref.repository.slice("oci://".length).replace(/\/+$/, "")}/${ref.name}`;
    let image;
    try {
      image = parseImage(repo);
    } catch {
      throw new ChartSourceError(`chart repository ${ref.repository}: not an OCI repository`);
    }
    const client = new RegistryClient(image, {
      ...(credentials ? { credentials } : {}),
      timeoutMs: this.o.timeoutMs ?? 60_000,
    });
    try {
      return await client.helmChart(version.replaceAll("+", "_"), this.o.maxArchiveBytes ?? 20 << 20);
    } catch (err) {
      throw new ChartSourceError(`chart oci://${repo}:${version}: ${(err as Error).message}`);
    }
  }

  /** GET with a byte cap; redirects followed (5 at most), credentials only to `host`. */
  private get(
    url: URL,
    host: string,
    credentials: ChartCredentials | undefined,
    o: { maxBytes: number; what: string },
    redirects = 0,
  ): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const fail = (message: string) => reject(new ChartSourceError(`${o.what}: ${message}`));
      if (url.protocol !== "https:") return fail(`refusing ${url.protocol} (https only)`);
      const headers: Record<string, string> = { "user-agent": "gitsync-manager", accept: "*/*" };
      if (credentials && url.host === host) {
        headers.authorization = `Basic ${
          Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")
        }`;
      }
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
        headers,
        timeout: this.o.timeoutMs ?? 60_000,
        ...(this.o.ca ? { ca: this.o.ca } : {}),
      }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          if (redirects >= 5) return fail("too many redirects");
          return this.get(new URL(res.headers.location, url), host, credentials, o, redirects + 1).then(
            resolve,
            reject,
          );
        }
        if (status !== 200) {
          res.resume();
          return fail(
            status === 401 || status === 403
              ? `refused (HTTP ${status}); check the chart's secretRef`
              : status === 404
              ? "not found (HTTP 404)"
              : `HTTP ${status}`,
          );
        }
        const declared = Number(res.headers["content-length"] ?? 0);
        if (declared > o.maxBytes) {
          res.destroy();
          return fail(`larger than ${o.maxBytes} bytes`);
        }
        const parts: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > o.maxBytes) {
            res.destroy();
            fail(`larger than ${o.maxBytes} bytes`);
            return;
          }
          parts.push(chunk);
        });
        res.on("end", () => resolve(new Uint8Array(Buffer.concat(parts))));
        res.on("error", (err) => fail(err.message));
      });
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (err) => fail(`did not answer (${err.message})`));
      req.end();
    });
  }
}
