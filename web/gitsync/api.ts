/**
 * The console's API over the shared fetch wrapper: same-origin JSON reads; a 401 from /api/ means the
 * session is over, and its body names the sign-in mode to offer (token or OIDC).
 */
import { ApiError } from "../shared/api_error.ts";
import { createClient, type RequestOptions } from "../shared/http.ts";

export { ApiError };

export interface SessionInfo {
  mode: "token" | "oidc";
  user: string;
  groups: string[];
  expiresAt: string;
}

export type SignInMode = "token" | "oidc";

/** The sign-in mode a 401 names, if any. */
export const signInOf = (err: unknown): SignInMode | undefined => {
  const mode = err instanceof ApiError ? err.body.signIn : undefined;
  return mode === "token" || mode === "oidc" ? mode : undefined;
};

let onSignedOut: (signIn: SignInMode, message: string) => void = () => {};
export function setSignedOutHandler(fn: typeof onSignedOut) {
  onSignedOut = fn;
}

const request = createClient({
  onError: (err, path) => {
    const mode = signInOf(err);
    if (err.status === 401 && mode && path.startsWith("/api/")) onSignedOut(mode, err.message);
  },
});

export const api = <T>(path: string, options?: RequestOptions) => request<T>(path, options);

export const signInWithToken = (token: string) =>
  api<SessionInfo>("/auth/token", { method: "POST", body: { token } });

export const signOut = () => api<unknown>("/auth/logout", { method: "POST" });
