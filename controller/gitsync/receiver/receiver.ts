/**
 * The push receiver (seed sections 4, 5.4, 7, 8; off unless --webhook-receiver-bind-address):
 * `POST /hooks/<namespace>/<repository>` from GitHub or GitLab stamps the Repository's
 * reconcile-requested-at, so it fetches now instead of at its next poll. Every replica answers.
 *
 * The checks run in this order, cheapest and least revealing first (notes: reading bodies before
 * authenticating is how other receivers were attacked):
 *   1. per remote address: burst 50, 5 per second, before anything else → 429 rate_limited
 *   2. body at most 1 MB → 413 too_large (unreadable: 400 bad_request)
 *   3. the Repository, its spec.webhook Secret and that Secret's `token`: any of them missing is the
 *      same 401 as a bad signature, so callers cannot probe which Repositories exist → 401 unauthorized
 *   4. X-Hub-Signature-256 = sha256=HMAC(body, token), else X-Gitlab-Token = token, compared in
 *      constant time → 401 unauthorized
 *   5. per Repository: burst 10, 1 per second, charged only after authentication → 429 rate_limited
 * Then: ping → 200 ping; push, Push Hook, Tag Push Hook → the payload's repository URLs must name
 * spec.git.url (400 repository_mismatch), the annotation is stamped → 202 accepted; any other event →
 * 202 ignored. Bodies are the result word and a newline.
 *
 * `POST /hooks/imagepolicies/<namespace>/<name>` (a registry's push event) runs the same checks with
 * the ImagePolicy's spec.webhook Secret, authenticated by `Authorization: Bearer <token>` as well, and
 * a per-ImagePolicy limiter of its own; it stamps the ImagePolicy so it rescans at once (GitHub events
 * other than package, registry_package and ping are ignored).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { type AppEnv, serve, TokenBuckets } from "../../../internal/http/mod.ts";
import { silentLogger } from "../../../internal/log/mod.ts";
import { repositoryIdentity } from "./repo_url.ts";

export const RECEIVER_RESULTS = [
  "accepted",
  "ignored",
  "ping",
  "unauthorized",
  "rate_limited",
  "too_large",
  "bad_request",
  "repository_mismatch",
  "error",
] as const;
export type ReceiverResult = typeof RECEIVER_RESULTS[number];

const MAX_BODY = 1024 * 1024;
const STATUS: Record<ReceiverResult, number> = {
  accepted: 202,
  ignored: 202,
  ping: 200,
  unauthorized: 401,
  rate_limited: 429,
  too_large: 413,
  bad_request: 400,
  repository_mismatch: 400,
  error: 500,
};

export interface ReceiverOptions {
  host: string;
  port: number;
  /** The Repository's Git URL and webhook token; undefined when either is missing. Throws on API errors. */
  lookup: (namespace: string, name: string) => Promise<{ url: string; token: string } | undefined>;
  /** Stamps reconcile-requested-at on the Repository. */
  requestReconcile: (namespace: string, name: string) => Promise<void>;
  /** The ImagePolicy's webhook token; undefined when the policy, its Secret or the token is missing. */
  lookupImagePolicy?: (namespace: string, name: string) => Promise<{ token: string } | undefined>;
  /** Stamps reconcile-requested-at on the ImagePolicy (a rescan now). */
  requestScan?: (namespace: string, name: string) => Promise<void>;
  /** Every answer, for metrics and logs (namespace and name only once authenticated). */
  onResult?: (result: ReceiverResult, repository?: string) => void;
  now?: () => number;
}

export interface Receiver {
  port: number;
  close(): Promise<void>;
}

const equal = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The URLs a GitHub or GitLab push payload gives for its repository. */
function payloadUrls(body: unknown): string[] {
  const b = body as { repository?: Record<string, unknown>; project?: Record<string, unknown> };
  const fields = [
    b.repository?.clone_url,
    b.repository?.ssh_url,
    b.repository?.html_url,
    b.project?.git_http_url,
    b.project?.git_ssh_url,
    b.project?.web_url,
  ];
  return fields.filter((f): f is string => typeof f === "string");
}

/** The body, at most MAX_BODY bytes (a declared larger one is not read at all). */
async function readBody(req: Request): Promise<Buffer | "too_large" | "bad_request"> {
  if (Number(req.headers.get("content-length")) > MAX_BODY) return "too_large";
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks);
      size += value.length;
      if (size > MAX_BODY) {
        await reader.cancel();
        return "too_large";
      }
      chunks.push(value);
    }
  } catch {
    return "bad_request";
  }
}

/** GitHub's HMAC signature, else GitLab's token, else (ImagePolicies only) a bearer token; constant time. */
function authenticated(req: Request, body: Buffer, token: string, bearer: boolean): boolean {
  const signature = req.headers.get("x-hub-signature-256");
  const gitlab = req.headers.get("x-gitlab-token");
  const authorization = req.headers.get("authorization");
  if (typeof signature === "string") {
    return equal(signature, `sha256=${createHmac("sha256", token).update(body).digest("hex")}`);
  }
  if (typeof gitlab === "string") return equal(gitlab, token);
  if (bearer && typeof authorization === "string" && /^Bearer /i.test(authorization)) {
    return equal(authorization.slice(7).trim(), token);
  }
  return false;
}

/** The receiver's routes (every path answers; see the module comment). */
export function receiverApp(o: ReceiverOptions): Hono<AppEnv> {
  const now = o.now ?? Date.now;
  const peers = new TokenBuckets({ ratePerSecond: 5, burst: 50, now });
  const repositories = new TokenBuckets({ ratePerSecond: 1, burst: 10, now });
  const imagePolicies = new TokenBuckets({ ratePerSecond: 1, burst: 10, now });

  async function decide(
    req: Request,
    peer: string,
  ): Promise<{ result: ReceiverResult; repository?: string }> {
    // 1. Per remote address, before anything is read.
    if (!peers.take(peer).allowed) return { result: "rate_limited" };
    // 2. The body, capped.
    const body = await readBody(req);
    if (body === "too_large" || body === "bad_request") return { result: body };
    const path = new URL(req.url).pathname;
    const policy = /^\/hooks\/imagepolicies\/([a-z0-9][a-z0-9-]{0,62})\/([a-z0-9][a-z0-9.-]{0,252})$/.exec(
      path,
    );
    if (req.method === "POST" && policy && o.lookupImagePolicy && o.requestScan) {
      return await decideImagePolicy(req, body, policy[1]!, policy[2]!);
    }
    const m = /^\/hooks\/([a-z0-9][a-z0-9-]{0,62})\/([a-z0-9][a-z0-9.-]{0,252})$/.exec(path);
    if (req.method !== "POST" || !m) return { result: "unauthorized" };
    const [, namespace, name] = m as unknown as [string, string, string];
    // 3. The Repository and its token: whatever is missing, the answer is the same.
    let target: { url: string; token: string } | undefined;
    try {
      target = await o.lookup(namespace, name);
    } catch {
      return { result: "error" };
    }
    if (!target) return { result: "unauthorized" };
    // 4. Authenticate: GitHub's signature, else GitLab's token.
    if (!authenticated(req, body, target.token, false)) return { result: "unauthorized" };
    const repository = `${namespace}/${name}`;
    // 5. Per Repository, only for authenticated callers.
    if (!repositories.take(repository).allowed) return { result: "rate_limited", repository };
    const event = req.headers.get("x-github-event") ?? req.headers.get("x-gitlab-event");
    if (event === "ping") return { result: "ping", repository };
    if (event !== "push" && event !== "Push Hook" && event !== "Tag Push Hook") {
      return { result: "ignored", repository };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      return { result: "bad_request", repository };
    }
    const want = repositoryIdentity(target.url);
    if (!want || !payloadUrls(payload).some((u) => repositoryIdentity(u) === want)) {
      return { result: "repository_mismatch", repository };
    }
    try {
      await o.requestReconcile(namespace, name);
    } catch {
      return { result: "error", repository };
    }
    return { result: "accepted", repository };
  }

  /** The ImagePolicy route: steps 3 to 5 with the policy's token and limiter. */
  async function decideImagePolicy(
    req: Request,
    body: Buffer,
    namespace: string,
    name: string,
  ): Promise<{ result: ReceiverResult; repository?: string }> {
    let target: { token: string } | undefined;
    try {
      target = await o.lookupImagePolicy!(namespace, name);
    } catch {
      return { result: "error" };
    }
    if (!target || !authenticated(req, body, target.token, true)) return { result: "unauthorized" };
    const object = `imagepolicies/${namespace}/${name}`;
    if (!imagePolicies.take(object).allowed) return { result: "rate_limited", repository: object };
    const event = req.headers.get("x-github-event");
    if (event === "ping") return { result: "ping", repository: object };
    if (event !== null && event !== "package" && event !== "registry_package") {
      return { result: "ignored", repository: object };
    }
    try {
      await o.requestScan!(namespace, name);
    } catch {
      return { result: "error", repository: object };
    }
    return { result: "accepted", repository: object };
  }

  const app = new Hono<AppEnv>();
  app.all("*", async (c) => {
    const { result, repository } = await decide(c.req.raw, c.env?.remoteAddr ?? "");
    o.onResult?.(result, repository);
    return new Response(`${result}\n`, {
      status: STATUS[result],
      headers: { "content-type": "text/plain; charset=utf-8", connection: "close" },
    });
  });
  return app;
}

export function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const server = serve(receiverApp(o), {
    hostname: o.host,
    port: o.port,
    log: silentLogger, // the manager logs one line with every port
    handleSignals: false,
    // Senders that trickle or hold a connection open are cut off (slow-request attacks).
    idleTimeoutSeconds: 30,
  });
  return Promise.resolve({ port: server.port, close: () => server.stop() });
}
