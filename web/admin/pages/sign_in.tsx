/** Sign-in: email and password (user mode) or the shared token (bearer mode). */
import { useState } from "preact/hooks";
import { api, type AuthMode, bearer, friendlyMessage, request } from "../api.ts";
import { ErrorNote, Field, OriginWarning } from "../components.tsx";
import { SignInCard } from "../../shared/sign_in_card.tsx";

export function SignInPage(props: { mode: AuthMode; error?: string; onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(props.error);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (props.mode === "bearer") {
        bearer.set(token.trim());
        await request("GET", "/v1/me/active-project", { quiet401: true }).catch((err) => {
          bearer.clear();
          throw err;
        });
      } else {
        await api.signIn(email.trim(), password);
      }
      await props.onSignedIn();
    } catch (err) {
      const status = (err as { status?: number }).status;
      setError(
        props.mode === "bearer" && status === 401
          ? "That token is not this server's MEMSVC_AUTH_TOKEN."
          : friendlyMessage(err),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <SignInCard product="memsvc" title="Sign in to memsvc">
      <OriginWarning />
      <ErrorNote error={error} />
      <form onSubmit={submit} aria-describedby="signin-help">
        {props.mode === "bearer"
          ? (
            <>
              <p id="signin-help" class="muted">
                This server runs with one shared token (<code>MEMSVC_AUTH_TOKEN</code>). It is kept in this
                tab only.
              </p>
              <Field label="Token">
                <input
                  type="password"
                  name="token"
                  autocomplete="off"
                  required
                  value={token}
                  onInput={(e) => setToken(e.currentTarget.value)}
                />
              </Field>
            </>
          )
          : (
            <>
              <p id="signin-help" class="muted">Use the account an admin created for you.</p>
              <Field label="Email">
                <input
                  type="email"
                  name="email"
                  autocomplete="username"
                  required
                  value={email}
                  onInput={(e) => setEmail(e.currentTarget.value)}
                />
              </Field>
              <Field label="Password">
                <input
                  type="password"
                  name="password"
                  autocomplete="current-password"
                  required
                  value={password}
                  onInput={(e) => setPassword(e.currentTarget.value)}
                />
              </Field>
            </>
          )}
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </SignInCard>
  );
}
