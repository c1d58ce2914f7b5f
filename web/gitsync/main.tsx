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
import { TopBar } from "../shared/top_bar.tsx";
import { Loading } from "../shared/ui.tsx";

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
  if (state.kind === "loading") {
    return (
      <main class="main">
        <Loading />
      </main>
    );
  }
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
  const apps = section === "apps" || section === "revisions";
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <TopBar
        brand="gitsync"
        brandHref={link("apps")}
        label="Sections"
        links={[
          { href: link("apps"), label: "Applications", current: apps },
          { href: link("repos"), label: "Repositories", current: section === "repos" },
        ]}
      >
        <span class="who-name" title={state.session.groups.join(", ")}>{state.session.user}</span>
        <button
          type="button"
          class="btn btn-small"
          onClick={async () => {
            await signOut();
            navigate(link("apps"));
            setState({ kind: "signed-out", mode: state.session.mode });
          }}
        >
          Sign out
        </button>
      </TopBar>
      <main id="main" class="main">
        <Page parts={parts} />
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
