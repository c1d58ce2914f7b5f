import { useState } from "preact/hooks";
import { signInWithToken } from "../api.ts";
import { SignInCard } from "../../shared/sign_in_card.tsx";

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
    <SignInCard
      product="gitsync"
      title="gitsync console"
      lead="Applications, Revisions and Repositories, read with your own Kubernetes identity."
      error={error || undefined}
    >
      {mode === "oidc"
        ? <a class="btn btn-primary" href="/auth/oidc/login">Sign in with your identity provider</a>
        : (
          <form onSubmit={submit}>
            <label class="field-label" for="token">Kubernetes bearer token</label>
            <textarea
              id="token"
              name="token"
              class="mono"
              rows={6}
              autocomplete="off"
              spellcheck={false}
              value={token}
              onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
            />
            <p class="muted small">
              For example{" "}
              <code>kubectl create token &lt;service-account&gt; -n &lt;namespace&gt;</code>. The console
              reads only what this token may read, keeps it in an encrypted cookie, and never writes.
            </p>
            <button type="submit" class="btn btn-primary" disabled={busy || !token.trim()}>Sign in</button>
          </form>
        )}
    </SignInCard>
  );
}
