/**
 * Who uses the dashboard. Without OIDC everyone who can reach it acts with the kubeconfig's identity
 * (like `kubectl proxy`, so --listen should stay on a loopback address). With OIDC each browser signs
 * in through the provider, and its Kubernetes requests impersonate that person: the ID token's email
 * (else its sub) as the user and its `groups` claim as groups.
 *
 * Sessions live in this process only: edgectl web is one process on one machine, and a restart signing
 * everyone out is acceptable. The browser holds a random id in an HttpOnly, SameSite=Lax cookie.
 */
import { randomBytes } from "node:crypto";

export interface WebUser {
  /** The Kubernetes user name requests impersonate (OIDC), or a label of the kubeconfig identity. */
  name: string;
  groups: string[];
  via: "kubeconfig" | "oidc";
}

export const SESSION_COOKIE = "edgectl_session";
export const PENDING_COOKIE = "edgectl_signin";

/** A sign-in started at the provider and not finished yet is forgotten after this long. */
const PENDING_MS = 10 * 60_000;
/** Bounds on what unauthenticated requests can make the process hold. */
const MAX_PENDING = 1000;
const MAX_SESSIONS = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** A map whose entries expire, holding at most `max` (the oldest go first). */
class ExpiringMap<T> {
  readonly #entries = new Map<string, Entry<T>>();

  constructor(private readonly max: number) {}

  put(value: T, expiresAt: number): string {
    const id = randomBytes(32).toString("base64url");
    this.#sweep();
    while (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(id, { value, expiresAt });
    return id;
  }

  get(id: string | undefined): T | undefined {
    if (!id) return undefined;
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  take(id: string | undefined): T | undefined {
    const value = this.get(id);
    if (id) this.#entries.delete(id);
    return value;
  }

  #sweep() {
    const now = Date.now();
    for (const [id, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(id);
  }
}

export class Sessions<P> {
  readonly users = new ExpiringMap<WebUser>(MAX_SESSIONS);
  readonly pending = new ExpiringMap<P>(MAX_PENDING);

  /** A new session until the ID token expires; returns its cookie value. */
  signIn(user: WebUser, expiresAt: number): string {
    return this.users.put(user, expiresAt);
  }

  startSignIn(pending: P): string {
    return this.pending.put(pending, Date.now() + PENDING_MS);
  }
}

/** The Kubernetes identity of an ID token's claims. */
export function userOfClaims(claims: { sub?: string; email?: unknown; groups?: unknown }): WebUser {
  const name = typeof claims.email === "string" && claims.email ? claims.email : String(claims.sub);
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g) => typeof g === "string") : [];
  return { name, groups, via: "oidc" };
}
