/**
 * Signing in: email and password, the OAuth providers the server has configured (meta
 * `vault-oauth`), a passkey; and creating an account, with an invite code when the vault asks for
 * one (GET /api/auth/registration).
 */
import { startAuthentication } from "@simplewebauthn/browser";
import { useEffect, useState } from "preact/hooks";
import type { PASSWORD_MIN_LENGTH } from "../../internal/auth/better_auth.ts";
import { api, ApiError } from "./api.ts";
import { SignInCard } from "../shared/sign_in_card.tsx";

const PROVIDER_NAMES: Record<string, string> = { github: "GitHub", google: "Google" };

/** The server's minimum (checked against it when the app is type-checked). */
const PASSWORD_MIN: typeof PASSWORD_MIN_LENGTH = 10;

/** Passkeys need a domain name: WebAuthn refuses an IP address as the relying party. */
export const passkeysPossible = (hostname = location.hostname) =>
  !/^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) && !hostname.includes(":") && !hostname.startsWith("[");

export const oauthProviders = () =>
  (document.querySelector('meta[name="vault-oauth"]')?.getAttribute("content") ?? "").split(" ").filter(
    Boolean,
  );

/** What the server's refusal codes mean to a person (API errors and an OAuth callback's `?error=`). */
const CODE_MESSAGES: Record<string, string> = {
  INVITE_REQUIRED: "An invite code is needed to create an account.",
  INVALID_INVITE: "That invite code is not valid (unknown, used, revoked or expired).",
  EMAIL_TAKEN: "An account with that email already exists.",
  FOUNDER_REQUIRED: "The vault has no account yet: create the first one with email and password.",
};

const messageOf = (err: unknown) => {
  if (err instanceof ApiError) {
    const known = err.code ? CODE_MESSAGES[err.code] : undefined;
    if (known) return known;
    if (err.status === 401) return "Wrong email or password.";
    if (err.status === 429) return "Too many attempts. Wait a while and try again.";
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
};

/** The provider sent the browser back with an error: say it in words when we know the code. */
const callbackError = (code: string | null) =>
  code ? `Sign-in failed: ${CODE_MESSAGES[code] ?? code.replaceAll("_", " ").toLowerCase()}` : "";

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const params = new URLSearchParams(location.search);
  const [mode, setMode] = useState<"sign-in" | "sign-up">(params.has("invite") ? "sign-up" : "sign-in");
  const [registration, setRegistration] = useState<{ mode: string; firstUser: boolean }>();
  const [error, setError] = useState(callbackError(params.get("error")));
  const [busy, setBusy] = useState(false);
  const [invite, setInvite] = useState(params.get("invite") ?? "");
  useEffect(() => {
    api<{ mode: string; firstUser: boolean }>("/api/auth/registration").then((r) => {
      setRegistration(r);
      if (r.firstUser) setMode("sign-up");
    }, () => {});
  }, []);
  const needsInvite = registration ? registration.mode === "invite-only" && !registration.firstUser : false;

  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError("");
    try {
      await fn();
      onSignedIn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    if (mode === "sign-in") {
      void run(() => api("/api/auth/sign-in/email", { method: "POST", body: { email, password } }));
    } else {
      const name = String(form.get("name") ?? "");
      void run(() =>
        api("/api/auth/sign-up/email", {
          method: "POST",
          body: { email, password, name, ...(invite ? { inviteCode: invite } : {}) },
        })
      );
    }
  };

  const social = (provider: string) =>
    void run(async () => {
      const res = await api<{ url: string }>("/api/auth/sign-in/social", {
        method: "POST",
        body: {
          provider,
          callbackURL: "/",
          errorCallbackURL: "/",
          ...(invite ? { additionalData: { inviteCode: invite } } : {}),
        },
      });
      location.href = res.url;
      await new Promise(() => {}); // leaving the page
    });

  const passkey = () =>
    void run(async () => {
      const options = await api<Parameters<typeof startAuthentication>[0]["optionsJSON"]>(
        "/api/auth/passkey/generate-authenticate-options",
      );
      const response = await startAuthentication({ optionsJSON: options });
      await api("/api/auth/passkey/verify-authentication", { method: "POST", body: { response } });
    });

  return (
    <SignInCard
      product="vault"
      title={mode === "sign-in" ? "Sign in to your vault" : "Create your vault account"}
    >
      <div class="switch" role="tablist" aria-label="Sign in or create an account">
        <button
          type="button"
          role="tab"
          aria-selected={mode === "sign-in"}
          onClick={() => setMode("sign-in")}
        >
          Sign in
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === "sign-up"}
          onClick={() => setMode("sign-up")}
        >
          Create account
        </button>
      </div>
      {registration?.firstUser && mode === "sign-up" && (
        <p class="muted">This vault has no account yet: the first one becomes its admin.</p>
      )}
      <form onSubmit={submit}>
        {mode === "sign-up" && (
          <label>
            Name <input name="name" autocomplete="name" required />
          </label>
        )}
        <label>
          Email <input name="email" type="email" autocomplete="username" required />
        </label>
        <label>
          Password{" "}
          <input
            name="password"
            type="password"
            autocomplete={mode === "sign-in" ? "current-password" : "new-password"}
            minLength={mode === "sign-up" ? PASSWORD_MIN : undefined}
            {...(mode === "sign-up" ? { "aria-describedby": "password-hint" } : {})}
            required
          />
        </label>
        {mode === "sign-up" && (
          <p id="password-hint" class="muted small">At least {PASSWORD_MIN} characters.</p>
        )}
        {mode === "sign-up" && needsInvite && (
          <label>
            Invite code{" "}
            <input name="invite" value={invite} onInput={(e) => setInvite(e.currentTarget.value)} required />
          </label>
        )}
        {error && <p class="alert alert-error" role="alert">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>
          {mode === "sign-in" ? "Sign in" : "Create account"}
        </button>
      </form>
      <div class="alt-sign-in">
        {oauthProviders().map((p) => (
          <button type="button" key={p} onClick={() => social(p)} disabled={busy}>
            {mode === "sign-in" ? "Sign in" : "Sign up"} with {PROVIDER_NAMES[p] ?? p}
          </button>
        ))}
        {mode === "sign-in" && passkeysPossible() && (
          <button type="button" onClick={passkey} disabled={busy}>Sign in with a passkey</button>
        )}
        {mode === "sign-in" && !passkeysPossible() && (
          <p class="muted small" data-testid="no-passkeys">
            Passkeys work only when the vault is opened by its domain name, not at an IP address such as{" "}
            {location.hostname}.
          </p>
        )}
      </div>
    </SignInCard>
  );
}
