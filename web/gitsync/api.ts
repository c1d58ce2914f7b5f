/** The console's API: same-origin JSON reads; a 401 means the session is over (sign in again). */
export interface SessionInfo {
  mode: "token" | "oidc";
  user: string;
  groups: string[];
  expiresAt: string;
}

export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly signIn?: "token" | "oidc") {
    super(message);
  }
}

let onSignedOut: (signIn: "token" | "oidc", message: string) => void = () => {};
export function setSignedOutHandler(fn: typeof onSignedOut) {
  onSignedOut = fn;
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(path, {
    credentials: "same-origin",
    ...init,
    headers: { accept: "application/json", ...init.headers },
  });
  const body = res.status === 204 ? {} : await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new ApiError(res.status, body.error ?? `HTTP ${res.status}`, body.signIn);
    if (res.status === 401 && body.signIn && path.startsWith("/api/")) onSignedOut(body.signIn, err.message);
    throw err;
  }
  return body as T;
}

export const signInWithToken = (token: string) =>
  api<SessionInfo>("/auth/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });

export const signOut = () => api<unknown>("/auth/logout", { method: "POST" });
