/**
 * The gitsync console: sign-in (token or OIDC), then read-only pages for Applications, an
 * Application and its Revisions, a Revision (plan with diffs, hooks, approval, diagnosis),
 * Repositories and an Application's live resource graph.
 */
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, type SessionInfo, setSignedOutHandler, signInOf, signOut } from "./api.ts";
import { link, navigate, useSegments } from "./router.ts";
import { ApplicationPage } from "./pages/application.tsx";
import { ApplicationsPage } from "./pages/applications.tsx";
import { GraphPage } from "./pages/graph.tsx";
import { RepositoriesPage } from "./pages/repositories.tsx";
import { RevisionPage } from "./pages/revision.tsx";
import { SignInPage } from "./pages/sign_in.tsx";

type State =
  | { kind: "loading" }
  | { kind: "signed-in"; session: SessionInfo }
  | { kind: "signed-out"; mode: "token" | "oidc"; message?: string };

function Page({ parts }: { parts: string[] }) {
  const [section, ns, name, sub] = parts;
  if (section === "apps" && ns && name && sub === "graph") return <GraphPage ns={ns} name={name} />;
  if (section === "apps" && ns && name) return <ApplicationPage ns={ns} name={name} />;
  if (section === "revisions" && ns && name) return <RevisionPage ns={ns} name={name} />;
  if (section === "repos") return <RepositoriesPage />;
  return <ApplicationsPage />;
}

function App() {
  const [state, setState] = useState<State>({ kind: "loading" });
  const parts = useSegments();
  const load = useCallback(() => {
    api<SessionInfo>("/api/session").then(
      (session) => setState({ kind: "signed-in", session }),
      (err) => setState({ kind: "signed-out", mode: signInOf(err) ?? "token" }),
    );
  }, []);
  useEffect(() => {
    setSignedOutHandler((mode, message) => setState({ kind: "signed-out", mode, message }));
    load();
  }, []);
  if (state.kind === "loading") return <p class="muted">Loading…</p>;
  if (state.kind === "signed-out") {
    return (
      <SignInPage
        mode={state.mode}
        {...(state.message && state.message !== "not signed in" ? { message: state.message } : {})}
        onSignedIn={load}
      />
    );
  }
  const section = parts[0] ?? "apps";
  return (
    <>
      <header>
        <span class="brand">gitsync</span>
        <nav>
          <a href={link("apps")} class={section === "apps" || section === "revisions" ? "active" : ""}>
            Applications
          </a>
          <a href={link("repos")} class={section === "repos" ? "active" : ""}>Repositories</a>
        </nav>
        <span class="who" title={state.session.groups.join(", ")}>
          {state.session.user}
          <button
            type="button"
            onClick={async () => {
              await signOut();
              navigate(link("apps"));
              setState({ kind: "signed-out", mode: state.session.mode });
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main>
        <Page parts={parts} />
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
