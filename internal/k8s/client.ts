/**
 * A small Kubernetes API client on node:https (fetch cannot send client certificates portably; node:https
 * with ca/cert/key and a keep-alive Agent works both in Bun-compiled binaries and under Deno). In Bun
 * (the compiled binaries), plain requests go through Bun's own fetch with its `tls` option instead, which
 * costs the process less CPU per request; streams and watches stay on node:https.
 *
 *   const client = KubeClient.fromKubeconfig({ path: flags.kubeconfig, context: flags.context });
 *   const ns = await client.request<{ items: unknown[] }>({ path: "/api/v1/namespaces" });
 *   client.close();
 *
 * Authentication: bearer token (token, tokenFile re-read when it changes), client certificate
 * (data or files), basic auth, or an exec credential plugin (run lazily, cached until expiry, run
 * again once after a 401). Errors: the server's Status becomes KubeApiError; a server that cannot be
 * reached becomes KubeConnectionError("unable to connect to the server at <url>: <cause>").
 */
import { readFileSync, statSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import { ExecCredentialProvider } from "./exec_credential.ts";
import { KubeApiError, KubeconfigError, KubeConnectionError, type KubeStatus } from "./errors.ts";
import { loadKubeconfig, type LoadKubeconfigOptions, type ResolvedKubeconfig } from "./kubeconfig.ts";

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface KubeRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  /** Absolute API path, e.g. /api/v1/namespaces/default/configmaps. */
  path: string;
  /** Query parameters; undefined/null values are left out, arrays repeat the key. */
  query?: Record<string, QueryValue>;
  /** An object is sent as JSON; a string or bytes as given. */
  body?: unknown;
  /** Default application/json when there is a body. */
  contentType?: string;
  /** Default application/json. */
  accept?: string;
  /** Idle timeout in ms (default: the client's, 60 s); 0 for none (watches, log streams). */
  timeoutMs?: number;
  /** For streams: aborting closes the connection and ends the stream. */
  signal?: AbortSignal;
}

export interface KubeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface KubeClientOptions {
  /** Default request idle timeout in ms (default 60 000). */
  timeoutMs?: number;
  userAgent?: string;
  /** Namespace to use instead of the kubeconfig's (`-n`). */
  namespace?: string;
  /** For exec plugins: whether they may prompt (default process.stdin.isTTY). */
  stdinIsTerminal?: boolean;
  /** Act as this user (and groups) through the API server's impersonation headers. */
  impersonate?: Impersonation;
}

/** Who a request acts as (Impersonate-User / Impersonate-Group); the caller needs the impersonate verb. */
export interface Impersonation {
  user: string;
  groups?: string[];
}

/** One event of a watch stream. */
export interface WatchEvent<T = Record<string, unknown>> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

interface Credentials {
  authorization?: string;
  cert?: string;
  key?: string;
}

/** In Bun, plain requests use its fetch (see the module's comment). */
const bunFetch = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

/** Human text for the Node error codes a failed connection carries. */
function connectionCause(err: NodeJS.ErrnoException, host?: string): string {
  switch (err.code) {
    case "ERR_TLS_CERT_ALTNAME_INVALID": // Node's message names the host; Bun's fetch's does not
      return host && !err.message.includes(host)
        ? `tls: failed to verify certificate: the certificate is not valid for ${host}`
        : err.message;
    case "ECONNREFUSED":
      return "connection refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `no such host (${err.message})`;
    case "ECONNRESET":
      return "connection reset by peer";
    case "ETIMEDOUT":
      return "i/o timeout";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
      return "tls: failed to verify certificate: certificate signed by unknown authority";
    case "CERT_HAS_EXPIRED":
      return "tls: failed to verify certificate: certificate has expired";
    default:
      return err.message || String(err.code ?? err);
  }
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new KubeconfigError("invalid", `cannot read ${what} ${file}: ${(err as Error).message}`);
  }
}

function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) { for (const item of v) params.append(k, item); }
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

const MAX_429_ATTEMPTS = 3;

export class KubeClient {
  /** The resolved kubeconfig this client uses. */
  readonly config: ResolvedKubeconfig;
  /** Server URL without a trailing slash. */
  readonly server: string;
  /** Namespace for namespaced requests without an explicit one: the option, else the context's. */
  readonly namespace: string;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly url: URL;
  private readonly ca?: string;
  private readonly exec?: ExecCredentialProvider;
  private staticCreds?: Credentials;
  private agents = new Map<string, http.Agent>();
  private tls = new Map<string, object>();
  /** False for impersonating clients: they use their parent's connections and leave closing to it. */
  private ownsAgents = true;
  private readonly impersonators = new Map<string, KubeClient>();
  private token?: { value: string; mtimeMs: number };

  private readonly options: KubeClientOptions;

  constructor(config: ResolvedKubeconfig, options: KubeClientOptions = {}) {
    this.options = options;
    this.config = config;
    this.server = config.cluster.server;
    this.namespace = options.namespace || config.namespace;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.userAgent = options.userAgent ?? "toolkit-k8s";
    try {
      this.url = new URL(this.server);
    } catch {
      throw new KubeconfigError(
        "invalid",
        `cluster "${config.cluster.name}" has an invalid server URL "${this.server}"`,
      );
    }
    if (this.url.protocol !== "https:" && this.url.protocol !== "http:") {
      throw new KubeconfigError("invalid", `server URL "${this.server}" must use https or http`);
    }
    const c = config.cluster;
    this.ca = c.caData ?? (c.caFile ? readPem(c.caFile, "certificate-authority") : undefined);
    const u = config.user;
    if (u.authProvider) {
      throw new KubeconfigError(
        "invalid",
        `user "${u.name}" uses the auth-provider "${u.authProvider}", which is not supported; use an exec credential plugin`,
      );
    }
    if (u.exec) {
      this.exec = new ExecCredentialProvider(u.exec, {
        cluster: c,
        ...(options.stdinIsTerminal === undefined ? {} : { stdinIsTerminal: options.stdinIsTerminal }),
      });
    }
  }

  /** loadKubeconfig + new KubeClient. */
  static fromKubeconfig(options: LoadKubeconfigOptions & KubeClientOptions = {}): KubeClient {
    return new KubeClient(loadKubeconfig(options), options);
  }

  /**
   * A client for the same cluster and credentials that acts as `who`, e.g. an Application's service
   * account: `client.impersonating({ user: "system:serviceaccount:team:deployer" })`. The API server
   * then authorizes every request as that user (a service account user gets its groups added).
   */
  impersonating(who: Impersonation): KubeClient {
    // One client per identity, on the parent's keep-alive connections (impersonation is only headers),
    // so a controller acting as many service accounts neither reconnects nor re-discovers each time.
    const key = JSON.stringify([who.user, who.groups ?? []]);
    let client = this.impersonators.get(key);
    if (!client) {
      client = new KubeClient(this.config, { ...this.options, impersonate: who });
      client.agents = this.agents;
      client.tls = this.tls;
      client.ownsAgents = false;
      this.impersonators.set(key, client);
    }
    return client;
  }

  /** Whom this client acts as, when it impersonates. */
  get impersonation(): Impersonation | undefined {
    return this.options.impersonate;
  }

  /** Sends a request and returns the parsed JSON body (undefined for an empty body). */
  async request<T = unknown>(req: KubeRequest): Promise<T> {
    const res = await this.requestRaw(req);
    if (!res.body) return undefined as T;
    const type = String(res.headers["content-type"] ?? "");
    if (!type.includes("json") && !type.includes("yaml")) return res.body as T;
    try {
      return JSON.parse(res.body) as T;
    } catch {
      return res.body as T;
    }
  }

  /** Sends a request; returns status, headers and body text. Throws KubeApiError for status >= 400. */
  async requestRaw(req: KubeRequest): Promise<KubeResponse> {
    for (let attempt = 1;; attempt++) {
      const res = await this.withAuthRetry(
        async (creds) => {
          if (bunFetch) return await this.fetchOnce(req, creds);
          const msg = await this.send(req, creds);
          const body = await readBody(msg);
          return { status: msg.statusCode ?? 0, headers: msg.headers, body };
        },
        (r) => r.status,
      );
      // Throttled (API priority and fairness): wait as told and try again, a few times.
      if (res.status === 429 && attempt < MAX_429_ATTEMPTS) {
        const after = Number(res.headers["retry-after"]);
        await new Promise((r) =>
          setTimeout(r, Math.min(Number.isFinite(after) && after >= 0 ? after : 1, 10) * 1000)
        );
        continue;
      }
      if (res.status >= 400) throw apiError(res.status, res.body, req);
      return res;
    }
  }

  /**
   * Streams a response body as text chunks (pod logs with follow=true). Throws KubeApiError before
   * the first chunk when the server refuses. Breaking out of the loop closes the connection.
   */
  async *stream(req: KubeRequest): AsyncGenerator<string> {
    const msg = await this.withAuthRetry(
      (creds) => this.send({ ...req, timeoutMs: req.timeoutMs ?? 0 }, creds),
      (m) => m.statusCode ?? 0,
      (m) => m.resume(),
    );
    if ((msg.statusCode ?? 0) >= 400) throw apiError(msg.statusCode ?? 0, await readBody(msg), req);
    msg.setEncoding("utf8");
    const abort = () => msg.destroy();
    req.signal?.addEventListener("abort", abort, { once: true });
    if (req.signal?.aborted) abort();
    try {
      for await (const chunk of msg) yield chunk as string;
    } catch (err) {
      if (!req.signal?.aborted) throw err;
    } finally {
      req.signal?.removeEventListener("abort", abort);
      msg.destroy();
    }
  }

  /** Watches a collection (`watch=true` is added) and yields its events. */
  async *watch<T = Record<string, unknown>>(
    path: string,
    query: Record<string, QueryValue> = {},
    signal?: AbortSignal,
    accept?: string,
  ): AsyncGenerator<WatchEvent<T>> {
    let buffer = "";
    for await (
      const chunk of this.stream({
        path,
        query: { ...query, watch: true },
        ...(signal ? { signal } : {}),
        ...(accept ? { accept } : {}),
      })
    ) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line) yield JSON.parse(line) as WatchEvent<T>;
      }
    }
  }

  /** Closes idle keep-alive connections so the process can exit. */
  close(): void {
    if (!this.ownsAgents) return; // The parent's connections; closed with the parent.
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** Runs `attempt`; after a 401 with an exec plugin, runs the plugin again and retries once (as client-go does). */
  private async withAuthRetry<R>(
    attempt: (creds: Credentials) => Promise<R>,
    status: (r: R) => number,
    discard?: (r: R) => void,
  ): Promise<R> {
    const first = await attempt(await this.credentials());
    if (status(first) !== 401 || !this.exec) return first;
    discard?.(first);
    this.exec.invalidate();
    return await attempt(await this.credentials());
  }

  private async credentials(): Promise<Credentials> {
    const u = this.config.user;
    if (this.exec) {
      const c = await this.exec.get();
      if (c.token) return { authorization: `Bearer ${c.token}` };
      return { cert: c.clientCertificateData, key: c.clientKeyData };
    }
    if (!this.staticCreds) {
      const creds: Credentials = {};
      const cert = u.clientCertificateData ??
        (u.clientCertificateFile ? readPem(u.clientCertificateFile, "client-certificate") : undefined);
      const key = u.clientKeyData ?? (u.clientKeyFile ? readPem(u.clientKeyFile, "client-key") : undefined);
      if (cert && key) {
        creds.cert = cert;
        creds.key = key;
      } else if (cert || key) {
        throw new KubeconfigError(
          "invalid",
          `user "${u.name}" has a client ${cert ? "certificate but no key" : "key but no certificate"}`,
        );
      }
      if (u.token) creds.authorization = `Bearer ${u.token}`;
      else if (u.username !== undefined && u.password !== undefined) {
        creds.authorization = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
      }
      this.staticCreds = creds;
    }
    if (u.tokenFile && !u.token) {
      return { ...this.staticCreds, authorization: `Bearer ${this.readTokenFile(u.tokenFile)}` };
    }
    return this.staticCreds;
  }

  /** Re-reads the token file when it changed: projected service-account tokens rotate. */
  private readTokenFile(file: string): string {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
      if (this.token && this.token.mtimeMs === mtimeMs) return this.token.value;
      const value = readFileSync(file, "utf8").trim();
      this.token = { value, mtimeMs };
      return value;
    } catch (err) {
      throw new KubeconfigError("invalid", `cannot read tokenFile ${file}: ${(err as Error).message}`);
    }
  }

  private agent(creds: Credentials): http.Agent {
    const id = `${creds.cert ?? ""}\0${creds.key ?? ""}`;
    let agent = this.agents.get(id);
    if (!agent) {
      const c = this.config.cluster;
      agent = this.url.protocol === "https:"
        ? new https.Agent({
          keepAlive: true,
          ...(this.ca ? { ca: this.ca } : {}),
          ...(creds.cert ? { cert: creds.cert, key: creds.key } : {}),
          rejectUnauthorized: !c.insecureSkipTlsVerify,
          ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
        })
        : new http.Agent({ keepAlive: true });
      this.agents.set(id, agent);
    }
    return agent;
  }

  /**
   * Sends once more when a kept-alive connection turned out to be closed by the server
   * (ECONNRESET on a reused socket: the request never reached it), except for POST, which is not
   * idempotent.
   */
  private async send(req: KubeRequest, creds: Credentials): Promise<http.IncomingMessage> {
    try {
      return await this.sendOnce(req, creds);
    } catch (err) {
      const stale = err instanceof KubeConnectionError &&
        (err.cause as { staleSocket?: boolean })?.staleSocket;
      if (!stale || req.method === "POST") throw err;
      return await this.sendOnce(req, creds);
    }
  }

  /** The request's body and headers, for either transport. */
  private prepare(req: KubeRequest, creds: Credentials) {
    let payload: string | Uint8Array | undefined;
    let contentType = req.contentType;
    if (req.body !== undefined) {
      if (typeof req.body === "string" || req.body instanceof Uint8Array) payload = req.body;
      else payload = JSON.stringify(req.body);
      contentType ??= "application/json";
    }
    const headers: Record<string, string | string[]> = {
      Accept: req.accept ?? "application/json",
      "User-Agent": this.userAgent,
    };
    const who = this.options.impersonate;
    if (who) {
      headers["Impersonate-User"] = who.user;
      // One header line per group: the API server does not split a comma-separated value.
      if (who.groups?.length) headers["Impersonate-Group"] = who.groups;
    }
    if (contentType) headers["Content-Type"] = contentType;
    if (creds.authorization) headers.Authorization = creds.authorization;
    const basePath = this.url.pathname.replace(/\/+$/, "");
    return { payload, headers, path: `${basePath}${req.path}${encodeQuery(req.query)}` };
  }

  /** Bun's TLS options for fetch, one object per credentials (Bun keeps one TLS context per object). */
  private tlsFor(creds: Credentials): object {
    const id = `${creds.cert ?? ""}\0${creds.key ?? ""}`;
    let tls = this.tls.get(id);
    if (!tls) {
      const c = this.config.cluster;
      tls = {
        ...(this.ca ? { ca: this.ca } : {}),
        ...(creds.cert ? { cert: creds.cert, key: creds.key } : {}),
        rejectUnauthorized: !c.insecureSkipTlsVerify,
        ...(c.tlsServerName ? { serverName: c.tlsServerName } : {}),
      };
      this.tls.set(id, tls);
    }
    return tls;
  }

  /** One request through Bun's fetch (see the module's comment); errors as sendOnce reports them. */
  private async fetchOnce(req: KubeRequest, creds: Credentials): Promise<KubeResponse> {
    const { payload, headers, path } = this.prepare(req, creds);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signal = req.signal && timeout ? AbortSignal.any([req.signal, timeout]) : req.signal ?? timeout;
    try {
      const res = await fetch(`${this.url.origin}${path}`, {
        method: req.method ?? "GET",
        headers: Object.values(headers).some(Array.isArray)
          ? Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one) => [k, one]))
          : headers as Record<string, string>,
        ...(payload !== undefined ? { body: payload } : {}),
        ...(signal ? { signal } : {}),
        redirect: "manual",
        tls: this.tlsFor(creds),
      } as RequestInit);
      const body = await res.text();
      const out: http.IncomingHttpHeaders = {};
      res.headers.forEach((value, name) => (out[name] = value));
      return { status: res.status, headers: out, body };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.name === "TimeoutError") {
        const timedOut = new Error(`request timed out after ${timeoutMs / 1000} s`) as NodeJS.ErrnoException;
        timedOut.code = "KUBE_TIMEOUT";
        throw new KubeConnectionError(this.server, connectionCause(timedOut), { cause: timedOut });
      }
      const host = this.config.cluster.tlsServerName ?? this.url.hostname;
      throw new KubeConnectionError(this.server, connectionCause(e, host), { cause: e });
    }
  }

  private sendOnce(req: KubeRequest, creds: Credentials): Promise<http.IncomingMessage> {
    const method = req.method ?? "GET";
    const { payload, headers: prepared, path } = this.prepare(req, creds);
    const headers: http.OutgoingHttpHeaders = { ...prepared };
    if (payload !== undefined) headers["Content-Length"] = Buffer.byteLength(payload);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const mod = this.url.protocol === "https:" ? https : http;
    const agent = this.agent(creds);
    return new Promise((resolve, reject) => {
      const r = mod.request({
        protocol: this.url.protocol,
        hostname: this.url.hostname.replace(/^\[|\]$/g, ""),
        port: this.url.port || (this.url.protocol === "https:" ? 443 : 80),
        method,
        path,
        headers,
        agent,
        ...(this.config.cluster.tlsServerName ? { servername: this.config.cluster.tlsServerName } : {}),
      }, resolve);
      if (timeoutMs > 0) {
        r.setTimeout(timeoutMs, () => {
          const e = new Error(`request timed out after ${timeoutMs / 1000} s`) as NodeJS.ErrnoException;
          e.code = "KUBE_TIMEOUT";
          r.destroy(e);
        });
      }
      r.on("error", (err: NodeJS.ErrnoException & { staleSocket?: boolean }) => {
        if (r.reusedSocket && err.code === "ECONNRESET") err.staleSocket = true;
        reject(new KubeConnectionError(this.server, connectionCause(err), { cause: err }));
      });
      r.end(payload);
    });
  }
}

function readBody(msg: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    msg.on("data", (d: Buffer) => chunks.push(d));
    msg.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    msg.on("error", reject);
  });
}

function apiError(status: number, body: string, req: KubeRequest): KubeApiError {
  let parsed: KubeStatus | string = body;
  try {
    parsed = JSON.parse(body) as KubeStatus;
  } catch {
    // Not JSON (e.g. a plain-text 404 from a non-API path): keep the text.
  }
  return new KubeApiError(status, parsed, req.method ?? "GET", req.path);
}
