import { useState } from "preact/hooks";
import { signInWithToken } from "../api.ts";

export function SignInPage({ mode, message, onSignedIn }: {
  mode: "token" | "oidc";
  message?: string;
  onSignedIn: () => void;
}) {
  const [token, setToken] = useState("");
  const [error, setError] = useState(message ?? new URLSearchParams(location.search).get("error") ?? "");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await signInWithToken(token.trim());
      setToken("");
      onSignedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>gitsync console</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {mode === "oidc"
        ? <a class="button" href="/auth/oidc/login">Sign in with your identity provider</a>
        : (
          <form onSubmit={submit}>
            <label for="token">Kubernetes bearer token</label>
            <textarea
              id="token"
              name="token"
              rows={6}
              autocomplete="off"
              spellcheck={false}
              value={token}
              onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
            />
            <p class="muted">
              For example{" "}
              <code>kubectl create token &lt;service-account&gt; -n &lt;namespace&gt;</code>. The console
              reads only what this token may read, keeps it in an encrypted cookie, and never writes.
            </p>
            <button type="submit" disabled={busy || !token.trim()}>Sign in</button>
          </form>
        )}
    </main>
  );
}
