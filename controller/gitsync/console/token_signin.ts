/**
 * Sign-in by Kubernetes bearer token (seed 5.5, 8): the token is checked before it is used, then
 * validated by a SelfSubjectReview (authentication.k8s.io/v1, Kubernetes 1.28+), and the review is
 * checked against the token:
 *
 *   refused: over 16 KiB; not a printable token; a JWT whose exp has passed; system:anonymous; group
 *   system:unauthenticated; system: users other than service accounts; a review naming a user or
 *   group that does not follow from the token (a service-account JWT reviewed as someone else, or
 *   with groups beyond its own).
 *
 * The session lasts until the token expires or 8 hours after sign-in, whichever is first.
 */
import { type ClusterConfig, isKubeApiError, KubeClient } from "../../../internal/k8s/mod.ts";
import type { Session } from "./session_cookie.ts";

export const MAX_TOKEN_BYTES = 16 * 1024;
export const MAX_SESSION_MS = 8 * 60 * 60 * 1000;

export class SignInRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignInRefused";
  }
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
}

interface JwtClaims {
  exp?: number;
  sub?: string;
  groups?: unknown;
  "kubernetes.io"?: { namespace?: string; serviceaccount?: { name?: string } };
}

/** The claims of a JWT-shaped token (unverified: only the API server verifies), else undefined. */
export function jwtClaims(token: string): JwtClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    return claims && typeof claims === "object" ? claims as JwtClaims : undefined;
  } catch {
    return undefined;
  }
}

/** Checks that need no API server: size, shape, expiry. Returns the token's claims, if a JWT. */
export function checkToken(token: string, now = Date.now()): JwtClaims | undefined {
  if (Buffer.byteLength(token, "utf8") > MAX_TOKEN_BYTES) {
    throw new SignInRefused("the token is larger than 16 KiB");
  }
  if (!token || !/^[\x21-\x7e]+$/.test(token)) throw new SignInRefused("the token is empty or not printable");
  const claims = jwtClaims(token);
  if (claims?.exp !== undefined && (typeof claims.exp !== "number" || claims.exp * 1000 <= now)) {
    throw new SignInRefused("the token has expired");
  }
  return claims;
}

const SA_GROUPS = (ns: string) =>
  new Set(["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"]);

/** Checks the review's identity against the rules and against the token it reviewed. */
export function checkReview(user: UserInfo, claims: JwtClaims | undefined): void {
  const name = user.username ?? "";
  const groups = user.groups ?? [];
  if (!name) throw new SignInRefused("the API server did not name the token's user");
  if (name === "system:anonymous") throw new SignInRefused("anonymous sign-in is refused");
  if (groups.includes("system:unauthenticated")) throw new SignInRefused("unauthenticated users are refused");
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  if (name.startsWith("system:") && !sa) {
    throw new SignInRefused(`system users other than service accounts are refused (${name})`);
  }
  const k8s = claims?.["kubernetes.io"];
  if (k8s?.serviceaccount?.name || claims?.sub?.startsWith("system:serviceaccount:")) {
    // A service-account token: the review must name that account and only its groups.
    const expected = k8s?.namespace && k8s.serviceaccount?.name
      ? `system:serviceaccount:${k8s.namespace}:${k8s.serviceaccount.name}`
      : claims!.sub!;
    if (name !== expected) {
      throw new SignInRefused(`the review names ${name}, but the token belongs to ${expected}`);
    }
    const allowed = SA_GROUPS(sa![1]!);
    const extra = groups.filter((g) => !allowed.has(g));
    if (extra.length) {
      throw new SignInRefused(`the review names groups the token does not carry: ${extra.join(", ")}`);
    }
    return;
  }
  if (Array.isArray(claims?.groups)) {
    const own = new Set(claims!.groups.map(String));
    const extra = groups.filter((g) =>
      g !== "system:authenticated" && !own.has(g) && !own.has(g.replace(/^[^:]*:/, ""))
    );
    if (extra.length) {
      throw new SignInRefused(`the review names groups the token does not carry: ${extra.join(", ")}`);
    }
  }
}

/** Validates `token` against the API server at `cluster` and returns the session it opens. */
export async function signInWithToken(
  cluster: ClusterConfig,
  token: string,
  now = Date.now(),
): Promise<Session> {
  const claims = checkToken(token, now);
  const client = new KubeClient({
    files: [],
    contextName: "console",
    cluster,
    user: { name: "console-sign-in", token },
    namespace: "default",
    namespaceFromConfig: false,
    contexts: [],
  }, { userAgent: "gitsync-console", timeoutMs: 20_000 });
  let review: { status?: { userInfo?: UserInfo } };
  try {
    review = await client.request({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
  } catch (err) {
    if (isKubeApiError(err, 401)) throw new SignInRefused("the API server refused the token");
    if (isKubeApiError(err, 404)) {
      throw new SignInRefused(
        "the API server has no SelfSubjectReview (the console needs Kubernetes 1.28 or later)",
      );
    }
    throw err;
  } finally {
    client.close();
  }
  const user = review?.status?.userInfo ?? {};
  checkReview(user, claims);
  const expiresAt = Math.min(now + MAX_SESSION_MS, claims?.exp ? claims.exp * 1000 : Infinity);
  return { mode: "token", user: user.username!, groups: user.groups ?? [], token, expiresAt };
}
